#include "engine/model_folder.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include "engine/error.h"
#include "engine/json_text.h"

namespace phasor {
namespace {

using Json = nlohmann::json;

// The JSON files Open reads, besides each module's config.json.
const char* const kJsonFiles[] = {"config.json",
                                  "model.safetensors.index.json",
                                  "tokenizer_config.json",
                                  "special_tokens_map.json",
                                  "modules.json",
                                  "config_sentence_transformers.json",
                                  "sentence_bert_config.json"};
// The other files phasor reads by name (HasFile).
const char* const kOtherFiles[] = {"model.safetensors",
                                   "pytorch_model.bin",
                                   "pytorch_model.bin.index.json",
                                   "tokenizer.json",
                                   "vocab.txt",
                                   "vocab.json",
                                   "merges.txt",
                                   "sentencepiece.bpe.model",
                                   "source.spm"};

// What a path that is not a regular file is, for messages.
std::string KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a file";
}

}  // namespace

std::string ReadJsonFileText(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    throw Error(path + ": " + (errno == ENOENT ? "no such file" : std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode))
    throw Error(path + ": is not a regular file (" + KindOf(st.st_mode) + ")");
  if (st.st_size > kMaxFolderJsonBytes) {
    throw Error(path + ": file is " + std::to_string(st.st_size) + " bytes, more than the " +
                std::to_string(kMaxFolderJsonBytes) + " a JSON file of a model folder may hold");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open for reading: " + std::strerror(errno));
  std::string text(static_cast<size_t>(st.st_size), '\0');
  // A file that shrank since stat leaves the read short: an error, not zeros.
  if (!in.read(text.data(), st.st_size) || in.peek() != std::char_traits<char>::eof()) {
    throw Error(path + ": changed while it was read");
  }
  return text;
}

namespace {

Json ParseJsonText(const std::string& path, const std::string& text) {
  try {
    return json_text::ParseStrictJson(text);
  } catch (const json_text::StructureError& e) {
    throw Error(path + ": " + e.message);
  } catch (const Json::exception& e) {
    throw Error(path + ": not valid JSON: " + json_text::Printable(e.what(), 300));
  }
}

// Whether name is a plain file or folder name beside others: no path may lead
// out of the folder.
bool IsPlainName(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos && name != "." && name != "..";
}

}  // namespace

void RequireModelFolder(const std::string& dir) {
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      throw Error("no such folder '" + dir +
                  "'; phasor reads a local folder: download it first, e.g. with "
                  "huggingface-cli download " +
                  dir + " --local-dir DIR");
    }
    throw Error("cannot open model folder " + dir + ": " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) throw Error(dir + ": is not a folder");
}

Json ReadJsonFile(const std::string& path) { return ParseJsonText(path, ReadJsonFileText(path)); }

std::shared_ptr<const ModelFolder> ModelFolder::Open(const std::string& dir) {
  RequireModelFolder(dir);
  std::shared_ptr<ModelFolder> folder(new ModelFolder(dir));
  folder->ReadJsonFiles();
  folder->ReadModules();
  folder->ReadSentenceConfig();
  folder->FindWeights();
  return folder;
}

void ModelFolder::ReadJsonFiles() {
  for (const char* name : kOtherFiles) {
    struct stat st {};
    const bool found = stat(Path(name).c_str(), &st) == 0;
    regular_[name] = found && S_ISREG(st.st_mode);
    if (found && !S_ISREG(st.st_mode)) not_regular_[name] = KindOf(st.st_mode);
  }
  for (const char* name : kJsonFiles) {
    struct stat st {};
    // lstat would refuse the symbolic links of the Hub's cache: stat follows them.
    if (stat(Path(name).c_str(), &st) != 0 && errno == ENOENT) {
      regular_[name] = false;
      continue;
    }
    const std::string text = ReadJsonFileText(Path(name));  // Error for a FIFO, a folder, ...
    if (std::string(name) == "config.json") config_text_ = text;
    json_[name] = ParseJsonText(Path(name), text);
    regular_[name] = true;
  }
}

bool ModelFolder::HasFile(const std::string& name) const {
  const auto it = regular_.find(name);
  return it != regular_.end() && it->second;
}

const Json* ModelFolder::Json(const std::string& name) const {
  const auto it = json_.find(name);
  return it == json_.end() ? nullptr : &it->second;
}

const std::string& ModelFolder::config_text() const {
  if (!HasFile("config.json")) throw Error("model directory " + dir_ + " has no config.json");
  return config_text_;
}

const WeightFiles& ModelFolder::weights() const {
  if (weights_.files.empty()) throw Error(no_weights_);
  return weights_;
}

void ModelFolder::ReadModules() {
  const nlohmann::json* modules = Json("modules.json");
  if (modules == nullptr) return;
  const std::string path = Path("modules.json");
  if (!modules->is_array()) throw Error(path + ": expected a JSON array of modules");
  for (size_t i = 0; i < modules->size(); ++i) {
    const nlohmann::json& m = (*modules)[i];
    const std::string at = path + ": module " + std::to_string(i) + ": ";
    if (!m.is_object() || !m.contains("type") || !m["type"].is_string()) {
      throw Error(at + "expected an object with a string 'type'");
    }
    Module module{m["type"].get<std::string>(), ""};
    if (m.contains("path") && !m["path"].is_null()) {
      if (!m["path"].is_string()) throw Error(at + "key 'path': expected a string");
      module.path = m["path"].get<std::string>();
    }
    if (!module.path.empty() && !IsPlainName(module.path)) {
      throw Error(at + "key 'path': '" + json_text::Printable(module.path, 80) +
                  "' is not a folder beside modules.json");
    }
    const std::string config = module.path + "/config.json";
    struct stat st {};
    if (!module.path.empty() && (stat(Path(config).c_str(), &st) == 0 || errno != ENOENT)) {
      json_[config] = ReadJsonFile(Path(config));
    }
    modules_.push_back(std::move(module));
  }
}

void ModelFolder::ReadSentenceConfig() {
  const nlohmann::json* cfg = Json("config_sentence_transformers.json");
  if (cfg == nullptr) return;
  const std::string path = Path("config_sentence_transformers.json");
  if (!cfg->is_object()) throw Error(path + ": expected a JSON object");
  const auto prompts = cfg->find("prompts");
  if (prompts != cfg->end() && !prompts->is_null()) {
    if (!prompts->is_object()) {
      throw Error(path + ": key 'prompts': expected an object of strings, found " +
                  json_text::Found(*prompts));
    }
    for (const auto& [name, text] : prompts->items()) {
      if (!text.is_string()) {
        throw Error(path + ": key 'prompts." + name + "': expected a string, found " +
                    json_text::Found(text));
      }
      prompts_[name] = text.get<std::string>();
    }
  }
  const auto fn = cfg->find("similarity_fn_name");
  if (fn != cfg->end() && !fn->is_null()) {
    if (!fn->is_string()) {
      throw Error(path + ": key 'similarity_fn_name': expected a string, found " +
                  json_text::Found(*fn));
    }
    similarity_fn_name_ = fn->get<std::string>();
  }
}

const std::string& ModelFolder::Prompt(const std::string& name) const {
  const std::string path = Path("config_sentence_transformers.json");
  if (!HasFile("config_sentence_transformers.json")) {
    throw Error(path + ": no such file (a prompt is read from its \"prompts\")");
  }
  const auto it = prompts_.find(name);
  if (it != prompts_.end()) return it->second;
  std::string known;
  for (const auto& [key, text] : prompts_) known += (known.empty() ? "" : ", ") + key;
  throw Error(path + ": prompts: no prompt \"" + name + "\" (" +
              (known.empty() ? std::string("it has none") : "it has " + known) + ")");
}

void ModelFolder::FindWeights() {
  if (HasFile("model.safetensors")) {
    weights_.files = {Path("model.safetensors")};
    return;
  }
  const auto odd = not_regular_.find("model.safetensors");
  if (odd != not_regular_.end()) {
    no_weights_ = Path("model.safetensors") + ": is not a regular file (" + odd->second + ")";
    return;
  }
  const nlohmann::json* index = Json("model.safetensors.index.json");
  if (index == nullptr) {
    no_weights_ =
        HasFile("pytorch_model.bin") || HasFile("pytorch_model.bin.index.json")
            ? dir_ +
                  " holds pytorch_model.bin (a pickle) and no model.safetensors: phasor reads "
                  "safetensors only; convert it with tools/convert_bin_to_safetensors.py"
            : "model directory " + dir_ + " has no model.safetensors";
    return;
  }
  weights_.index = Path("model.safetensors.index.json");
  const std::string at = weights_.index + ": key 'weight_map': ";
  if (!index->is_object() || !index->contains("weight_map")) throw Error(at + "missing");
  const nlohmann::json& map = (*index)["weight_map"];
  if (!map.is_object()) throw Error(at + "expected an object, found " + json_text::Found(map));
  if (map.empty()) throw Error(at + "names no tensor");
  std::set<std::string> files;
  for (const auto& [name, file] : map.items()) {
    if (!file.is_string()) {
      throw Error(at + "tensor '" + name + "': expected a file name, found " +
                  json_text::Found(file));
    }
    // A shard is a file beside the index: no path may lead elsewhere.
    const std::string& f = file.get_ref<const std::string&>();
    if (!IsPlainName(f)) {
      throw Error(at + "tensor '" + name + "' names the file '" + json_text::Printable(f, 80) +
                  "', expected a file name beside the index");
    }
    weights_.shard_of[name] = Path(f);
    files.insert(Path(f));
  }
  weights_.files.assign(files.begin(), files.end());
}

}  // namespace phasor

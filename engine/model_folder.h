// A model folder, opened once: every surface (Encoder::Load, the tokenizer,
// `phasor serve`, `phasor tokenize`, the Python module) takes what it needs
// from one ModelFolder instead of reading the folder again, and nothing reads
// it per request.
//
// Open looks at the files phasor knows by name, reads every small JSON file
// among them by one rule (ReadJsonFile: a regular file, at most
// kMaxFolderJsonBytes, parsed strictly) and finds the weights one way (one
// model.safetensors, else model.safetensors.index.json and its shards). It
// knows files and JSON only: what the keys mean is read above it (models/,
// tokenizers/). The large files (weights, tokenizer.json, vocabularies) are
// read by those who need them, once, from the paths it gives.
//
//   auto folder = ModelFolder::Open("all-MiniLM-L6-v2");
//   folder->config_text();                 // config.json as read at Open
//   folder->Json("modules.json");          // parsed, or null when absent
//   folder->Prompt("query");               // config_sentence_transformers.json's prompt
//
// Errors are one line naming the file and, where there is one, the key:
//   all-MiniLM-L6-v2/config.json: is not a regular file (a FIFO)
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace phasor {

// Throws Error unless dir is a folder: "no such folder 'DIR'; phasor reads a
// local folder: download it first, e.g. with huggingface-cli download DIR
// --local-dir DIR" when nothing is there (a Hub id given as a path), "DIR: is
// not a folder" for a file, "cannot open model folder DIR: <reason>" when it
// cannot be looked at (permissions). Opens nothing: a FIFO named like the
// folder would block.
void RequireModelFolder(const std::string& dir);

// The most bytes a JSON file of a model folder may hold (config.json, the
// shard index, tokenizer_config.json, ...): far past any real one.
inline constexpr int64_t kMaxFolderJsonBytes = int64_t{64} << 20;

// The one rule for a JSON file of a model folder. Throws Error "PATH: ..." for
// a file that is missing, not a regular file (a FIFO would block, a folder
// cannot be read: checked before it is opened), over kMaxFolderJsonBytes,
// unreadable, not valid JSON, repeating a key or nested too deep
// (json_text::ParseStrictJson).
nlohmann::json ReadJsonFile(const std::string& path);
// The same checks before the parse, for a reader that parses the text itself
// (models/config.h ParseConfig).
std::string ReadJsonFileText(const std::string& path);

// Where a model's weights are: one safetensors file, or the shards a
// model.safetensors.index.json maps each tensor to.
struct WeightFiles {
  std::string index;               // DIR/model.safetensors.index.json; "" for one file
  std::vector<std::string> files;  // paths: DIR/model.safetensors, or each shard once, sorted
  // Sharded only: each tensor's shard (a path of files), as the index's weight_map says.
  std::map<std::string, std::string> shard_of;
};

class ModelFolder {
 public:
  // Opens dir (RequireModelFolder), reads its JSON files and finds its
  // weights. Throws Error naming the file (and key) for any JSON file of the
  // folder that breaks ReadJsonFile's rule, a modules.json that is not an
  // array of modules ({"type": string, "path": string}) or names a path
  // outside the folder, a weight_map that is not an object of file names
  // beside the index, "prompts" or "similarity_fn_name" of the wrong type in
  // config_sentence_transformers.json. A folder may hold a tokenizer only:
  // nothing is required at Open.
  static std::shared_ptr<const ModelFolder> Open(const std::string& dir);

  const std::string& dir() const { return dir_; }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // Whether name (one of the file names phasor reads: config.json,
  // tokenizer.json, vocab.txt, modules.json, ...) was a regular file at Open.
  bool HasFile(const std::string& name) const;
  // A JSON file read at Open, by its name in the folder ("config.json",
  // "1_Pooling/config.json"); null if the folder has none.
  const nlohmann::json* Json(const std::string& name) const;

  // config.json's text as read at Open. Throws Error "model directory DIR has
  // no config.json" without one.
  const std::string& config_text() const;
  // The weights. Throws Error without any: "model directory DIR has no
  // model.safetensors" (or, beside pytorch_model.bin, how to convert it;
  // "DIR/model.safetensors: is not a regular file (a FIFO)" for one that is none).
  const WeightFiles& weights() const;

  // sentence-transformers: whether the folder has modules.json, its modules
  // in order, and the prompts of config_sentence_transformers.json.
  struct Module {
    std::string type;  // "sentence_transformers.models.Pooling"
    std::string path;  // "1_Pooling"; "" for the Transformer
  };
  bool IsSentenceTransformers() const { return HasFile("modules.json"); }
  const std::vector<Module>& modules() const { return modules_; }
  // The text of prompt name. Throws Error naming the file and the prompts it
  // has if there is no such prompt, or that the folder has no
  // config_sentence_transformers.json.
  const std::string& Prompt(const std::string& name) const;
  // config_sentence_transformers.json's similarity_fn_name; "" if not given.
  const std::string& similarity_fn_name() const { return similarity_fn_name_; }

 private:
  explicit ModelFolder(std::string dir) : dir_(std::move(dir)) {}
  void ReadJsonFiles();
  void ReadModules();
  void ReadSentenceConfig();
  void FindWeights();

  std::string dir_;
  std::map<std::string, bool> regular_;             // each known name: a regular file at Open
  std::map<std::string, std::string> not_regular_;  // a known name that is no file: what it is
  std::map<std::string, nlohmann::json> json_;
  std::string config_text_;
  WeightFiles weights_;
  std::string no_weights_;  // why there are none, when there are none
  std::vector<Module> modules_;
  std::map<std::string, std::string> prompts_;
  std::string similarity_fn_name_;
};

}  // namespace phasor

// Reading a tokenizer from a model folder. tokenizer.json is read as it is;
// the older layouts (vocab.txt, vocab.json + merges.txt) are turned into the
// tokenizer.json that transformers' converters make of them (BertConverter,
// RobertaConverter), so that one pipeline runs every kind; SentencePiece
// files run in libsentencepiece (model.h).
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "engine/error.h"
#include "engine/json_text.h"
#include "engine/model_folder.h"
#include "tokenizers/added_tokens.h"
#include "tokenizers/file_text.h"
#include "tokenizers/json_reader.h"
#include "tokenizers/model.h"
#include "tokenizers/model_spec.h"
#include "tokenizers/normalizer.h"
#include "tokenizers/post_processor.h"
#include "tokenizers/pre_tokenizer.h"
#include "tokenizers/tokenizer.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

std::string ReadText(const fs::path& path) { return ReadFileText(path.string()); }

json ReadJson(const fs::path& path) {
  const std::string name = path.string();
  const JsonDocument document(FileText(name), name);
  if (!document.root().is_object()) throw Error(name + ": expected a JSON object");
  try {
    return ToJson(document.root(), "");
  } catch (const json_text::StructureError& e) {
    throw Error(name + ": " + e.message);
  }
}

// A special token as tokenizer_config.json or special_tokens_map.json write
// it: a string, or an object with "content".
std::optional<std::string> TokenString(const json& config, const char* key) {
  if (!config.contains(key)) return std::nullopt;
  const json& v = config[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string())
    return v["content"].get<std::string>();
  return std::nullopt;
}

bool BoolOr(const json& config, const char* key, bool fallback) {
  return config.contains(key) && config[key].is_boolean() ? config[key].get<bool>() : fallback;
}

// model_max_length, if given: a number of at least 1 (Error naming path and
// the key otherwise: a string "512" or a 0 is a mistake, never "no bound").
void CheckModelMaxLength(const json& config, const std::string& path) {
  const auto it = config.find("model_max_length");
  if (it == config.end() || it->is_null()) return;
  if (!it->is_number() || !(it->get<double>() >= 1)) {
    throw Error(path + ": key 'model_max_length': expected a number of at least 1 (1e30 for no " +
                "bound), found " + json_text::Found(*it));
  }
}

// transformers writes model_max_length = 1e30 (VERY_LARGE_INTEGER, written
// out as 1000000000000000019884624838656) for "no bound"; any value from 1e29
// up is read as that, 0 here. A smaller value is a bound, kept at 2^53 at
// most (longer than any text phasor reads).
int64_t ModelMaxLength(const json& config) {
  if (!config.contains("model_max_length") || !config["model_max_length"].is_number()) return 0;
  const double v = config["model_max_length"].get<double>();
  if (!(v >= 1) || v >= 1e29) return 0;
  return static_cast<int64_t>(std::min(v, 9007199254740992.0));
}

json AddedTokenJson(const std::string& content, int32_t id, bool lstrip = false) {
  return {{"id", id},        {"content", content},  {"single_word", false}, {"lstrip", lstrip},
          {"rstrip", false}, {"normalized", false}, {"special", true}};
}

// The special tokens of config (with its defaults) that the vocabulary has.
json SpecialTokens(const json& config, const json& vocab,
                   const std::vector<std::pair<const char*, const char*>>& keys,
                   const std::string& lstrip_key = "") {
  json added = json::array();
  for (const auto& [key, fallback] : keys) {
    const std::string content = TokenString(config, key).value_or(fallback);
    const bool listed = std::any_of(added.begin(), added.end(),
                                    [&content](const json& a) { return a["content"] == content; });
    if (vocab.contains(content) && !listed)
      added.push_back(AddedTokenJson(content, vocab[content].get<int32_t>(), key == lstrip_key));
  }
  return added;
}

int32_t VocabId(const json& vocab, const std::string& token, const std::string& file) {
  if (!vocab.contains(token)) throw Error(file + ": has no token \"" + token + "\"");
  return vocab[token].get<int32_t>();
}

// transformers reads vocab.txt and merges.txt as UTF-8 and fails on anything
// else; so does phasor, naming the line.
void CheckUtf8(const std::string& line, const fs::path& path, size_t number) {
  if (const size_t bad = FindInvalidUtf8(line); bad != std::string::npos) {
    throw Error(path.string() + ": line " + std::to_string(number) + ", byte offset " +
                std::to_string(bad) + ": invalid UTF-8");
  }
}

// tokenizer_config.json's tokenizer_class names MPNet's tokenizer: a BERT
// vocabulary with fairseq's special tokens, as MPNetTokenizer reads vocab.txt.
bool IsMPNet(const json& config) {
  const std::optional<std::string> name = TokenString(config, "tokenizer_class");
  return name == "MPNetTokenizer" || name == "MPNetTokenizerFast";
}

// The post-processor and added tokens of a vocab.txt folder, as transformers'
// converters make them. BERT (BertConverter): "[CLS] A [SEP]" and
// "[CLS] A [SEP] B [SEP]", B's part of type 1. MPNet (MPNetConverter):
// "<s> A </s>" and "<s> A </s> </s> B </s>", B and its </s> of type 1, and
// <mask> matched with the whitespace before it (lstrip), as MPNetTokenizer
// makes it whatever the files say.
void WordPieceSpecials(const json& config, const json& vocab, const std::string& file, json& post,
                       json& added) {
  const bool mpnet = IsMPNet(config);
  const std::string cls = TokenString(config, "cls_token").value_or(mpnet ? "<s>" : "[CLS]");
  const std::string sep = TokenString(config, "sep_token").value_or(mpnet ? "</s>" : "[SEP]");
  const int32_t cls_id = VocabId(vocab, cls, file), sep_id = VocabId(vocab, sep, file);
  if (!mpnet) {
    added = SpecialTokens(config, vocab,
                          {{"pad_token", "[PAD]"},
                           {"unk_token", "[UNK]"},
                           {"cls_token", "[CLS]"},
                           {"sep_token", "[SEP]"},
                           {"mask_token", "[MASK]"}});
    post = {{"type", "BertProcessing"}, {"sep", {sep, sep_id}}, {"cls", {cls, cls_id}}};
    return;
  }
  added = SpecialTokens(config, vocab,
                        {{"bos_token", "<s>"},
                         {"eos_token", "</s>"},
                         {"unk_token", "[UNK]"},
                         {"sep_token", "</s>"},
                         {"pad_token", "<pad>"},
                         {"cls_token", "<s>"},
                         {"mask_token", "<mask>"}},
                        "mask_token");
  auto item = [](const std::string& id, int type_id) {
    const bool text = id == "A" || id == "B";
    return json{{text ? "Sequence" : "SpecialToken", {{"id", id}, {"type_id", type_id}}}};
  };
  post = {{"type", "TemplateProcessing"},
          {"single", {item(cls, 0), item("A", 0), item(sep, 0)}},
          {"pair",
           {item(cls, 0), item("A", 0), item(sep, 0), item(sep, 0), item("B", 1), item(sep, 1)}},
          {"special_tokens",
           {{cls, {{"id", cls}, {"ids", {cls_id}}, {"tokens", {cls}}}},
            {sep, {{"id", sep}, {"ids", {sep_id}}, {"tokens", {sep}}}}}}};
}

// vocab.txt (BERT, MPNet): one token a line, its id the line's index; as
// transformers' BertConverter (or MPNetConverter) makes the fast tokenizer of it.
json FromVocabTxt(const fs::path& dir, const json& config) {
  const fs::path path = dir / "vocab.txt";
  const std::string text = ReadText(path);
  json vocab = json::object();
  int32_t id = 0;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string token = text.substr(begin, end - begin);
    CheckUtf8(token, path, static_cast<size_t>(id) + 1);
    if (!vocab.contains(token)) vocab[token] = id;  // a repeated line keeps its first id
    ++id;
    begin = end + 1;
  }
  const std::string file = path.string();
  const std::string unk = TokenString(config, "unk_token").value_or("[UNK]");
  json post, added;
  WordPieceSpecials(config, vocab, file, post, added);
  json normalizer = {
      {"type", "BertNormalizer"},
      {"clean_text", true},
      {"handle_chinese_chars", BoolOr(config, "tokenize_chinese_chars", true)},
      {"strip_accents", config.contains("strip_accents") ? config["strip_accents"] : json(nullptr)},
      {"lowercase", BoolOr(config, "do_lower_case", true)}};
  return {{"added_tokens", added},
          {"normalizer", normalizer},
          {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
          {"post_processor", post},
          {"model",
           {{"type", "WordPiece"},
            {"vocab", vocab},
            {"unk_token", unk},
            {"continuing_subword_prefix", "##"},
            {"max_input_chars_per_word", 100}}}};
}

// vocab.json + merges.txt (byte-level BPE): RoBERTa's layout (RobertaConverter)
// when the vocabulary has <s> and </s>, GPT-2's (no special tokens) otherwise.
json FromVocabJsonMerges(const fs::path& dir, const json& config) {
  const json vocab = ReadJson(dir / "vocab.json");
  const std::string text = ReadText(dir / "merges.txt");
  json merges = json::array();
  size_t begin = 0;
  bool first = true;
  for (size_t number = 1; begin < text.size(); ++number) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    CheckUtf8(line, dir / "merges.txt", number);
    // The tokenizer that wrote the file puts "#version: ..." first.
    if (!(first && line.rfind("#version", 0) == 0) && !line.empty()) merges.push_back(line);
    first = false;
    begin = end + 1;
  }
  const bool add_prefix_space = BoolOr(config, "add_prefix_space", false);
  json model = {{"type", "BPE"},
                {"vocab", vocab},
                {"merges", merges},
                {"dropout", nullptr},
                {"continuing_subword_prefix", ""},
                {"end_of_word_suffix", ""},
                {"fuse_unk", false}};
  json pre = {
      {"type", "ByteLevel"}, {"add_prefix_space", add_prefix_space}, {"trim_offsets", true}};
  const std::string cls = TokenString(config, "cls_token").value_or("<s>");
  const std::string sep = TokenString(config, "sep_token").value_or("</s>");
  if (vocab.contains(cls) && vocab.contains(sep)) {
    model["unk_token"] = TokenString(config, "unk_token").value_or("<unk>");
    const std::string file = (dir / "vocab.json").string();
    return {{"added_tokens", SpecialTokens(config, vocab,
                                           {{"bos_token", "<s>"},
                                            {"pad_token", "<pad>"},
                                            {"eos_token", "</s>"},
                                            {"unk_token", "<unk>"},
                                            {"mask_token", "<mask>"}},
                                           "mask_token")},
            {"normalizer", nullptr},
            {"pre_tokenizer", pre},
            {"post_processor",
             {{"type", "RobertaProcessing"},
              {"sep", {sep, VocabId(vocab, sep, file)}},
              {"cls", {cls, VocabId(vocab, cls, file)}},
              {"trim_offsets", true},
              {"add_prefix_space", add_prefix_space}}},
            {"model", model}};
  }
  return {{"added_tokens", SpecialTokens(config, vocab, {{"eos_token", "<|endoftext|>"}})},
          {"normalizer", nullptr},
          {"pre_tokenizer", pre},
          {"post_processor", nullptr},
          {"model", model}};
}

}  // namespace

// Builds a Tokenizer from a tokenizer.json object (read or made).
struct TokenizerBuilder {
  // A tokenizer.json made here: read as the file would be.
  static Tokenizer FromJson(const json& spec, const std::string& file, const json& config) {
    const JsonDocument document(spec.dump(), file);
    return FromDocument(document, file, config);
  }

  static Tokenizer FromDocument(const JsonDocument& document, const std::string& file,
                                const json& config) {
    if (!document.root().is_object()) throw Error(file + ": expected a JSON object");
    // Every member as nlohmann json but the model, whose large parts the
    // model builders read in place.
    json spec = json::object();
    std::optional<ModelSpec> model;
    try {
      const simdjson::dom::object root = document.root().get_object().value_unsafe();
      for (const auto field : root) {
        if (field.key == "model") {
          if (model) RepeatedKey("", field.key);
          model = ReadModelSpec(field.value, "model");
          continue;
        }
        const std::string key(field.key);
        auto [slot, fresh] = spec.emplace(key, nullptr);
        if (!fresh) RepeatedKey("", key);
        slot.value() = ToJson(field.value, key);
      }
    } catch (const json_text::StructureError& e) {
      throw Error(file + ": " + e.message);
    }
    return Build(spec, model, file, config);
  }

  static Tokenizer Build(const json& spec, const std::optional<ModelSpec>& model,
                         const std::string& file, const json& config) {
    Tokenizer t;
    const std::string at = file + ": ";
    t.normalizer_ = MakeNormalizer(spec.value("normalizer", json(nullptr)), at + "normalizer");
    t.pre_tokenizer_ =
        MakePreTokenizer(spec.value("pre_tokenizer", json(nullptr)), at + "pre_tokenizer");
    if (!model) throw Error(at + "model: missing");
    t.model_ = MakeModel(*model, at + "model");
    t.post_processor_ =
        MakePostProcessor(spec.value("post_processor", json(nullptr)), at + "post_processor");
    t.added_ = ReadAddedTokens(spec, at, t);
    t.model_max_length_ = ModelMaxLength(config);
    return t;
  }

  static std::unique_ptr<AddedTokens> ReadAddedTokens(const json& spec, const std::string& at,
                                                      const Tokenizer& t) {
    std::vector<AddedToken> tokens;
    if (!spec.contains("added_tokens") || spec["added_tokens"].is_null()) return nullptr;
    const json& list = spec["added_tokens"];
    if (!list.is_array()) throw Error(at + "added_tokens: expected a list");
    for (size_t i = 0; i < list.size(); ++i) {
      // The entry named in messages, built only for one.
      auto where = [&] { return at + "added_tokens[" + std::to_string(i) + "]"; };
      const json& e = list[i];
      if (!e.is_object() || !e.contains("content") || !e["content"].is_string())
        throw Error(where() + ".content: expected a string");
      if (!e.contains("id") || !e["id"].is_number_integer() || e["id"].get<int64_t>() < 0 ||
          e["id"].get<int64_t>() > INT32_MAX)
        throw Error(where() + ".id: expected an id");
      AddedToken token;
      token.content = e["content"].get<std::string>();
      token.id = e["id"].get<int32_t>();
      auto flag = [&](const char* key, bool fallback) {
        if (!e.contains(key)) return fallback;
        if (!e[key].is_boolean()) throw Error(where() + "." + key + ": expected true or false");
        return e[key].get<bool>();
      };
      token.special = flag("special", false);
      token.single_word = flag("single_word", false);
      token.lstrip = flag("lstrip", false);
      token.rstrip = flag("rstrip", false);
      // The library's default: a special token is matched in the raw text.
      token.normalized = flag("normalized", !token.special);
      // A token matched after normalization is matched as normalized text.
      if (token.normalized && t.normalizer_) t.normalizer_->Normalize(token.content);
      tokens.push_back(std::move(token));
    }
    return std::make_unique<AddedTokens>(std::move(tokens));
  }

  static Tokenizer FromSentencePiece(const fs::path& dir, const json& config) {
    Tokenizer t;
    SentencePieceFileOptions o;
    json added = json::array();
    json post;
    if (IsFile(dir / "source.spm") && IsFile(dir / "vocab.json")) {
      // MarianTokenizer: pieces looked up in vocab.json; text then </s>.
      o.path = (dir / "source.spm").string();
      o.piece_ids_json = (dir / "vocab.json").string();
      const json vocab = ReadJson(dir / "vocab.json");
      const std::string unk = TokenString(config, "unk_token").value_or("<unk>");
      const std::string eos = TokenString(config, "eos_token").value_or("</s>");
      o.unk_id = VocabId(vocab, unk, o.piece_ids_json);
      const int32_t eos_id = VocabId(vocab, eos, o.piece_ids_json);
      added = SpecialTokens(
          config, vocab, {{"eos_token", "</s>"}, {"unk_token", "<unk>"}, {"pad_token", "<pad>"}});
      post = {{"type", "TemplateProcessing"},
              {"single",
               {{{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                {{"SpecialToken", {{"id", eos}, {"type_id", 0}}}}}},
              {"pair",
               {{{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                {{"Sequence", {{"id", "B"}, {"type_id", 0}}}},
                {{"SpecialToken", {{"id", eos}, {"type_id", 0}}}}}},
              {"special_tokens", {{eos, {{"id", eos}, {"ids", {eos_id}}, {"tokens", {eos}}}}}}};
      t.description_ = "source.spm + vocab.json (SentencePiece)";
    } else {
      // XLMRobertaTokenizer: fairseq's ids, SentencePiece's shifted by one.
      o.path = (dir / "sentencepiece.bpe.model").string();
      o.id_offset = 1;
      o.unk_id = 3;
      for (const auto& [content, id] : std::vector<std::pair<std::string, int32_t>>{
               {"<s>", 0}, {"<pad>", 1}, {"</s>", 2}, {"<unk>", 3}})
        added.push_back(AddedTokenJson(content, id));
      post = {{"type", "RobertaProcessing"}, {"sep", {"</s>", 2}}, {"cls", {"<s>", 0}}};
      t.description_ = "sentencepiece.bpe.model (SentencePiece)";
    }
    t.model_ = MakeSentencePieceFile(o);
    if (o.piece_ids_json.empty()) {
      // <mask> follows the shifted SentencePiece ids.
      added.push_back(AddedTokenJson("<mask>", t.model_->VocabSize(), true));
    }
    const std::string at = o.path + ": ";
    t.post_processor_ = MakePostProcessor(post, at + "post_processor");
    t.added_ = ReadAddedTokens({{"added_tokens", added}}, at, t);
    t.model_max_length_ = ModelMaxLength(config);
    return t;
  }
};

bool Tokenizer::Exists(const ModelFolder& folder) {
  const auto has = [&folder](const char* name) { return folder.HasFile(name); };
  return has("tokenizer.json") || has("vocab.txt") || (has("vocab.json") && has("merges.txt")) ||
         has("sentencepiece.bpe.model") || (has("source.spm") && has("vocab.json"));
}

std::shared_ptr<const Tokenizer> Tokenizer::Load(const std::string& dir) {
  return Load(*ModelFolder::Open(dir));
}

std::shared_ptr<const Tokenizer> Tokenizer::Load(const ModelFolder& folder) {
  const std::string& dir = folder.dir();
  const fs::path d(dir);
  json config = json::object();
  // special_tokens_map.json, then tokenizer_config.json over it, as
  // transformers reads them (read at the folder's Open).
  for (const char* name : {"special_tokens_map.json", "tokenizer_config.json"}) {
    const json* file = folder.Json(name);
    if (file == nullptr) continue;
    if (!file->is_object()) throw Error(folder.Path(name) + ": expected a JSON object");
    CheckModelMaxLength(*file, folder.Path(name));
    config.update(*file);
  }

  Tokenizer t;
  if (folder.HasFile("tokenizer.json")) {
    const std::string file = (d / "tokenizer.json").string();
    const JsonDocument document(FileText(file), file);
    t = TokenizerBuilder::FromDocument(document, file, config);
    t.description_ = "tokenizer.json";
  } else if (folder.HasFile("vocab.txt")) {
    t = TokenizerBuilder::FromJson(FromVocabTxt(d, config), (d / "vocab.txt").string(), config);
    t.description_ = "vocab.txt (WordPiece)";
  } else if (folder.HasFile("vocab.json") && folder.HasFile("merges.txt")) {
    t = TokenizerBuilder::FromJson(FromVocabJsonMerges(d, config), (d / "vocab.json").string(),
                                   config);
    t.description_ = "vocab.json + merges.txt (byte-level BPE)";
  } else if (folder.HasFile("sentencepiece.bpe.model") ||
             (folder.HasFile("source.spm") && folder.HasFile("vocab.json"))) {
    t = TokenizerBuilder::FromSentencePiece(d, config);
  } else {
    throw Error(dir +
                ": holds no tokenizer (tokenizer.json, vocab.txt, vocab.json + merges.txt, "
                "sentencepiece.bpe.model or source.spm + vocab.json)");
  }
  return std::make_shared<const Tokenizer>(std::move(t));
}

}  // namespace phasor::tokenizers

#include "models/length_rule.h"

#include <nlohmann/json.hpp>

#include "engine/error.h"
#include "engine/json_text.h"
#include "engine/model_folder.h"
#include "tokenizers/tokenizer.h"

namespace phasor {
namespace {

// sentence_bert_config.json's max_seq_length in the folder (read at its
// Open): 0 without the file or the key.
int64_t SentenceMaxSeqLength(const ModelFolder* folder, std::string& path) {
  const nlohmann::json* found = folder ? folder->Json("sentence_bert_config.json") : nullptr;
  if (found == nullptr) return 0;
  path = folder->Path("sentence_bert_config.json");
  const nlohmann::json& j = *found;
  if (!j.is_object()) throw Error(path + ": expected a JSON object");
  const auto it = j.find("max_seq_length");
  if (it == j.end() || it->is_null()) return 0;
  if (!it->is_number_integer() || it->get<int64_t>() < 1) {
    throw Error(path + ": key 'max_seq_length': expected a positive integer, found " +
                json_text::Found(*it));
  }
  return it->get<int64_t>();
}

}  // namespace

bool IsSentenceTransformersFolder(const ModelFolder* folder) {
  return folder != nullptr && folder->IsSentenceTransformers();
}

LengthRule ResolveLengthRule(const ModelFolder* folder, const tokenizers::Tokenizer* tokenizer,
                             int64_t model_limit, const std::string& model_limit_of,
                             std::optional<bool> truncate) {
  LengthRule rule;
  // The least bound wins; on a tie the first named (the folder's own words).
  const auto consider = [&rule](int64_t limit, const std::string& of) {
    if (limit > 0 && (rule.limit == 0 || limit < rule.limit)) {
      rule.limit = limit;
      rule.limit_of = of;
    }
  };
  std::string st_path;
  const int64_t st = SentenceMaxSeqLength(folder, st_path);
  consider(st, "max_seq_length " + std::to_string(st) + " of " + st_path);
  if (tokenizer) {
    const int64_t m = tokenizer->model_max_length();
    consider(m, "model_max_length " + std::to_string(m) + " of " +
                    (folder ? folder->Path("tokenizer_config.json") : "tokenizer_config.json"));
  }
  consider(model_limit, model_limit_of);
  rule.truncate = truncate.value_or(IsSentenceTransformersFolder(folder));
  return rule;
}

std::string TooLongMessage(const std::string& name, int64_t tokens, const LengthRule& rule,
                           const std::string& how) {
  return name + " has " + std::to_string(tokens) + " tokens, more than the " +
         std::to_string(rule.limit) + " of " + rule.limit_of + "; " + how;
}

}  // namespace phasor

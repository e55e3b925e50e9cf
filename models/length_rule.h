// The one truncation rule of a model folder, the same on every surface (the
// CLI, Python, the Dask tools and the server):
//
//   - A sequence holds at most the least of: the tokenizer's model_max_length
//     (tokenizer_config.json), a sentence-transformers folder's max_seq_length
//     (sentence_bert_config.json) and the model's positions.
//   - A longer text is cut to that many tokens (its special tokens kept) when
//     truncation is on; otherwise it is refused naming its length, the limit
//     and where the limit comes from.
//   - Truncation is on by default for a sentence-transformers folder (as
//     sentence-transformers cuts every text at max_seq_length) and off for
//     any other folder, unless the caller says (--truncate / --no-truncate,
//     Python truncate=, the server's --auto-truncate and "truncate").
//
//   LengthRule rule = ResolveLengthRule(model.folder(), tokenizer.get(),
//   model.max_sequence_length(),
//                                       model.max_sequence_length_of(), std::nullopt);
//   // rule.limit 256, rule.limit_of "max_seq_length 256 of
//   // all-MiniLM-L6-v2/sentence_bert_config.json", rule.truncate true
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace phasor {

namespace tokenizers {
class Tokenizer;
}
class ModelFolder;  // engine/model_folder.h

struct LengthRule {
  int64_t limit = 0;      // tokens a sequence may hold; 0: no bound is known
  std::string limit_of;   // where the limit comes from, for messages
  bool truncate = false;  // cut a longer sequence (else refuse it)
};

// folder: the model folder (null for the built-in toy); tokenizer: its tokenizer,
// or null when only token ids are read; model_limit: the model's positions
// (Model::max_sequence_length(), <= 0 when unknown, e.g. a folder with only
// tokenizer files), model_limit_of its words (Model::max_sequence_length_of());
// truncate: the caller's choice, or nullopt for the folder's default.
// Takes sentence_bert_config.json's max_seq_length if the folder has one:
// Error naming the file and key for one that is not a positive integer.
LengthRule ResolveLengthRule(const ModelFolder* folder, const tokenizers::Tokenizer* tokenizer,
                             int64_t model_limit, const std::string& model_limit_of,
                             std::optional<bool> truncate);

// The message for a sequence longer than rule.limit (truncation off): "NAME has
// N tokens, more than the 256 of max_seq_length 256 of DIR/sentence_bert_config.json;
// " + how ("--truncate (Python truncate=True) cuts it to its first 256").
std::string TooLongMessage(const std::string& name, int64_t tokens, const LengthRule& rule,
                           const std::string& how);

// Whether folder is a sentence-transformers folder (it has modules.json): then
// its text is cut at its limit and pooled as modules.json says by default.
bool IsSentenceTransformersFolder(const ModelFolder* folder);

}  // namespace phasor

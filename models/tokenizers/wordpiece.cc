// WordPiece (BERT): greedy longest-match-first over a piece's characters, as
// tokenizers/src/models/wordpiece/mod.rs. Each match after the first is
// looked up with continuing_subword_prefix ("##") in front; a piece longer
// than max_input_chars_per_word code points, or one with a position where no
// vocabulary entry starts, is the single unknown token.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/error.h"
#include "models/tokenizers/model.h"
#include "models/tokenizers/model_vocab.h"
#include "models/tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

class WordPiece final : public Model {
 public:
  WordPiece(TokenTable vocab, int32_t unk_id, std::string prefix, size_t max_chars)
      : vocab_(std::move(vocab)),
        unk_id_(unk_id),
        prefix_(std::move(prefix)),
        max_chars_(max_chars) {}

  void Tokenize(std::string_view piece, std::vector<int32_t>& ids) const override {
    if (CountCodePoints(piece) > max_chars_) {
      ids.push_back(unk_id_);
      return;
    }
    // Candidates after the first are prefix_ + piece[start, end); one buffer
    // per thread holds them, shortened in place as end moves left.
    thread_local std::string candidate;
    const size_t first_id = ids.size();
    size_t start = 0;
    while (start < piece.size()) {
      size_t end = piece.size();
      if (start > 0) {
        candidate.assign(prefix_);
        candidate.append(piece.substr(start));
      }
      std::optional<int32_t> id;
      while (start < end) {
        id = start == 0 ? vocab_.Find(piece.substr(0, end))
                        : vocab_.Find(std::string_view(candidate).substr(
                              0, prefix_.size() + (end - start)));
        if (id) break;
        do {
          --end;
        } while (end > start && IsContinuationByte(piece[end]));
      }
      if (!id) {
        ids.resize(first_id);
        ids.push_back(unk_id_);
        return;
      }
      ids.push_back(*id);
      start = end;
    }
  }

  std::optional<int32_t> TokenToId(std::string_view token) const override {
    return vocab_.Find(token);
  }
  int32_t VocabSize() const override { return vocab_.IdBound(); }

 private:
  TokenTable vocab_;
  int32_t unk_id_;
  std::string prefix_;
  size_t max_chars_;
};

}  // namespace

std::unique_ptr<Model> MakeWordPiece(const nlohmann::json& spec, const std::string& where) {
  if (!spec.contains("vocab")) throw Error(where + ".vocab: missing");
  TokenTable vocab = ReadTokenIds(spec["vocab"], where + ".vocab");
  const std::string unk = StringField(spec, "unk_token", where, "[UNK]");
  const auto unk_id = vocab.Find(unk);
  // The library looks the unknown token up only when a word needs it; phasor
  // asks at load, so a broken file fails before any text is read.
  if (!unk_id) {
    throw Error(where + ".unk_token: " + Quoted(unk) + " is not in the vocabulary");
  }
  const std::string prefix = StringField(spec, "continuing_subword_prefix", where, "##");
  size_t max_chars = 100;
  if (const auto it = spec.find("max_input_chars_per_word"); it != spec.end() && !it->is_null()) {
    if (!it->is_number_integer() || (!it->is_number_unsigned() && it->get<int64_t>() < 0)) {
      throw Error(where + ".max_input_chars_per_word: expected an integer >= 0, got " + it->dump());
    }
    max_chars = it->get<uint64_t>();
  }
  return std::make_unique<WordPiece>(std::move(vocab), *unk_id, prefix, max_chars);
}

}  // namespace phasor::tokenizers

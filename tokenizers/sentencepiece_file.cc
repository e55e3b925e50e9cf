// A SentencePiece .model file run by libsentencepiece itself (normalisation,
// whitespace handling and segmentation are the file's own), with each piece
// mapped to the id the Hugging Face tokenizer of that model gives it: through
// a vocab.json (Marian) or SentencePiece's id plus an offset (fairseq's
// XLM-R and CamemBERT, where SentencePiece's unknown piece becomes unk_id).
#include <sentencepiece_processor.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/error.h"
#include "tokenizers/json_reader.h"
#include "tokenizers/model.h"
#include "tokenizers/model_vocab.h"

namespace phasor::tokenizers {
namespace {

class SentencePieceFile final : public Model {
 public:
  explicit SentencePieceFile(const SentencePieceFileOptions& options) : options_(options) {
    const auto status = processor_.Load(options.path);
    if (!status.ok()) {
      throw Error(options.path + ": cannot be read as a SentencePiece model (" + status.ToString() +
                  ")");
    }
    if (!options.piece_ids_json.empty()) {
      std::ifstream file(options.piece_ids_json, std::ios::binary);
      if (!file) throw Error(options.piece_ids_json + ": cannot be read");
      std::stringstream text;
      text << file.rdbuf();
      const JsonDocument json(text.str(), options.piece_ids_json);
      piece_ids_ = ReadTokenIds(json.root(), options.piece_ids_json);
      use_piece_ids_ = true;
    }
    if (options.unk_id < 0) {
      throw Error(options.path + ": unk_id " + std::to_string(options.unk_id) + " is negative");
    }
    if (options.id_offset < 0) {
      throw Error(options.path + ": id_offset " + std::to_string(options.id_offset) +
                  " is negative");
    }
  }

  void Tokenize(std::string_view piece, std::vector<int32_t>& ids) const override {
    if (use_piece_ids_) {
      thread_local std::vector<std::string> pieces;
      pieces.clear();
      Check(processor_.Encode(std::string(piece), &pieces));
      for (const std::string& p : pieces) {
        ids.push_back(piece_ids_.Find(p).value_or(options_.unk_id));
      }
      return;
    }
    thread_local std::vector<int> spm_ids;
    spm_ids.clear();
    Check(processor_.Encode(std::string(piece), &spm_ids));
    for (const int id : spm_ids) ids.push_back(FromSentencePiece(id));
  }

  // SentencePiece's own spans of its pieces in piece (bytes).
  void TokenizeWithOffsets(std::string_view piece, std::vector<int32_t>& ids,
                           std::vector<Span>& spans) const override {
    const sentencepiece::ImmutableSentencePieceText spt =
        processor_.EncodeAsImmutableProto(std::string(piece));
    for (const auto& p : spt.pieces()) {
      ids.push_back(use_piece_ids_ ? piece_ids_.Find(p.piece()).value_or(options_.unk_id)
                                   : FromSentencePiece(static_cast<int>(p.id())));
      spans.emplace_back(p.begin(), p.end());
    }
  }
  std::string_view IdToToken(int32_t id) const override {
    if (use_piece_ids_) return piece_ids_.TokenOf(id);
    const int spm_id = id - options_.id_offset;
    if (spm_id < 0 || spm_id >= processor_.GetPieceSize()) return {};
    return processor_.IdToPiece(spm_id);
  }

  std::optional<int32_t> TokenToId(std::string_view token) const override {
    if (use_piece_ids_) return piece_ids_.Find(token);
    const std::string text(token);
    const int id = processor_.PieceToId(text);
    // PieceToId answers the unknown piece's id for any text it lacks.
    if (processor_.IsUnknown(id) && processor_.IdToPiece(id) != text) return std::nullopt;
    return FromSentencePiece(id);
  }

  int32_t VocabSize() const override {
    const int32_t bound =
        use_piece_ids_ ? piece_ids_.IdBound() : processor_.GetPieceSize() + options_.id_offset;
    return std::max(bound, options_.unk_id + 1);
  }

 private:
  int32_t FromSentencePiece(int id) const {
    return processor_.IsUnknown(id) ? options_.unk_id : id + options_.id_offset;
  }
  void Check(const sentencepiece::util::Status& status) const {
    if (!status.ok()) throw Error(options_.path + ": " + status.ToString());
  }

  SentencePieceFileOptions options_;
  sentencepiece::SentencePieceProcessor processor_;
  TokenTable piece_ids_;
  bool use_piece_ids_ = false;
};

}  // namespace

std::unique_ptr<Model> MakeSentencePieceFile(const SentencePieceFileOptions& options) {
  return std::make_unique<SentencePieceFile>(options);
}

}  // namespace phasor::tokenizers

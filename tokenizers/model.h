// Tokenizer models: turn one pre-tokenized piece into ids, as the Hugging
// Face tokenizers model of the same kind does. One file a kind, one line a
// kind in model_registry.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizers/aligned_text.h"

namespace phasor::tokenizers {

class Model {
 public:
  virtual ~Model() = default;
  // Appends the ids of piece (valid UTF-8, not empty). Safe to call from many
  // threads at once. Never fails on text: what the vocabulary lacks becomes
  // the unknown token or byte fallback pieces, as the library does; a model
  // with neither throws Error naming the character it cannot encode.
  virtual void Tokenize(std::string_view piece, std::vector<int32_t>& ids) const = 0;
  // The same, with each id's [begin, end) bytes of piece in spans, as the
  // library's Token offsets give them (a byte fallback piece of BPE covers its
  // one byte; Unigram's cover the whole unknown run; an unknown WordPiece
  // word covers the word).
  virtual void TokenizeWithOffsets(std::string_view piece, std::vector<int32_t>& ids,
                                   std::vector<Span>& spans) const = 0;
  // The vocabulary's string for id (empty if it has none): the token text the
  // offset trimming of ByteLevel and RobertaProcessing looks at.
  virtual std::string_view IdToToken(int32_t id) const = 0;
  // The id of a vocabulary entry, if it is one.
  virtual std::optional<int32_t> TokenToId(std::string_view token) const = 0;
  // One past the largest id of the vocabulary.
  virtual int32_t VocabSize() const = 0;
};

// The model a tokenizer.json "model" value describes (its "type", or for a
// file without one, the kind its fields imply as the library infers it).
// where names the value in messages; an unknown type, a missing or mistyped
// field, an id out of range or a merge of unknown tokens throws Error naming
// where and the field.
std::unique_ptr<Model> MakeModel(const nlohmann::json& spec, const std::string& where);

// One kind, from a spec given as nlohmann json (read as a file's: model_spec.h
// has the builders that read tokenizer.json in place).
std::unique_ptr<Model> MakeWordPiece(const nlohmann::json& spec, const std::string& where);
std::unique_ptr<Model> MakeBpe(const nlohmann::json& spec, const std::string& where);
std::unique_ptr<Model> MakeUnigram(const nlohmann::json& spec, const std::string& where);

// A SentencePiece model file (sentencepiece.bpe.model, Marian's source.spm),
// read and run by Debian's libsentencepiece: the piece is the whole segment,
// normalised and split by SentencePiece itself. Each SentencePiece piece maps
// to an id by piece_ids (a vocab.json as Marian ships it) when given, else by
// SentencePiece's own id plus id_offset (fairseq's layout: XLM-R, CamemBERT),
// with SentencePiece's unknown piece mapped to unk_id.
struct SentencePieceFileOptions {
  std::string path;
  std::string piece_ids_json;  // path of a vocab.json, or empty
  int32_t id_offset = 0;
  int32_t unk_id = 0;
};
std::unique_ptr<Model> MakeSentencePieceFile(const SentencePieceFileOptions& options);

}  // namespace phasor::tokenizers

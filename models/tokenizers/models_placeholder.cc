// Placeholder until the model kinds land (wordpiece.cc, bpe.cc, unigram.cc,
// sentencepiece_file.cc replace this file).
#include <nlohmann/json.hpp>

#include "engine/error.h"
#include "models/tokenizers/model.h"

namespace phasor::tokenizers {
std::unique_ptr<Model> MakeWordPiece(const nlohmann::json&, const std::string& where) {
  throw Error(where + ": not implemented");
}
std::unique_ptr<Model> MakeBpe(const nlohmann::json&, const std::string& where) {
  throw Error(where + ": not implemented");
}
std::unique_ptr<Model> MakeUnigram(const nlohmann::json&, const std::string& where) {
  throw Error(where + ": not implemented");
}
std::unique_ptr<Model> MakeSentencePieceFile(const SentencePieceFileOptions& o) {
  throw Error(o.path + ": not implemented");
}
}  // namespace phasor::tokenizers

// The rows a call asks of a model, one rule for every front end (the CLI's
// encode, Python's encode, phasor serve): the stage, the pooling (a named one,
// or the folder's own with "model": its Pooling, Dense and Normalize modules),
// whether rows are normalized, whether they are packed; and the combinations
// that cannot go together, each refused once here in the front end's spelling
// of its options.
//
//   const OutputChoice c = ResolveOutput({stage, "final", "model"}, folder, kCliSpelling);
//   // c.pool, c.normalize, c.sentence_dense: what the folder's modules declare
#pragma once

#include <string>

#include "engine/model_folder.h"
#include "models/encoder.h"
#include "models/head_output.h"
#include "models/pooling.h"

namespace phasor {

// How a front end names an option and a value of it in a message.
struct OptionSpelling {
  // The option alone: "--pool" (CLI) or "pool" (Python).
  std::string (*name)(const std::string& option);
  // The option with a value: "--pool mean", "--layout packed", "--normalize"
  // (CLI), "pool='mean'", "packed=True", "pool=None" (Python). option is one of
  // "stage", "pool", "normalize", "packed"; the flags' value is "".
  std::string (*given)(const std::string& option, const std::string& value);
  const char* unit;  // what a row group is called: "line" (CLI) or "sequence"
};

extern const OptionSpelling kCliSpelling;
extern const OptionSpelling kPythonSpelling;

// What a call asks, before the folder's modules are read.
struct OutputAsk {
  EncoderStage stage = EncoderStage::kFinal;
  std::string stage_text = "final";  // as the caller gave it, for messages
  // "none", "mean", "cls", "max", "last", "mean_sqrt_len" or "model".
  std::string pool = "none";
  // Whether pool is the front end's default rather than the caller's: an
  // error of the folder's modules then says how to ask for every row instead.
  bool pool_defaulted = false;
  bool normalize = false;
  bool packed = false;
};

struct OutputChoice {
  EncoderStage stage = EncoderStage::kFinal;
  Pooling pool = Pooling::kNone;
  bool normalize = false;       // asked, or the folder's Normalize (pool "model")
  bool sentence_dense = false;  // pool "model": the folder's Dense modules
  bool packed = false;

  // The head a stage runs (kPooler, kLogits), else kNone.
  HeadOutput head() const;
  // Whether each sequence gives one row (pooled, or a head's).
  bool one_row_each() const { return pool != Pooling::kNone || head() != HeadOutput::kNone; }
};

// The choice for ask. folder: the model's folder, null for a model without
// one. Throws Error for pool "model" without a sentence-transformers folder
// (modules.json), and UsageError for: an unknown pool; a head stage
// (pooler, logits) with a pool or packed rows; normalize without a pool;
// packed rows with a pool; each in spelling's words. Errors of the folder's modules are
// DeclaredPooling's (models/sentence_transformers.h), with the way to every row added when the pool
// was the default.
OutputChoice ResolveOutput(const OutputAsk& ask, const ModelFolder* folder,
                           const OptionSpelling& spelling);

}  // namespace phasor

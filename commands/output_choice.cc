#include "commands/output_choice.h"

#include "engine/error.h"
#include "models/length_rule.h"
#include "models/sentence_transformers.h"

namespace phasor {
namespace {

std::string CliName(const std::string& option) {
  return option == "packed" ? "--layout" : "--" + option;
}
std::string CliGiven(const std::string& option, const std::string& value) {
  if (option == "packed") return "--layout packed";
  return value.empty() ? "--" + option : "--" + option + " " + value;
}
std::string PythonName(const std::string& option) { return option; }
std::string PythonGiven(const std::string& option, const std::string& value) {
  if (option == "normalize") return "normalize=True (normalize_embeddings=True)";
  if (value.empty()) return option + "=True";  // a flag
  return value == "none" ? option + "=None" : option + "='" + value + "'";
}

// The folder's own modules: what a sentence-transformers folder declares.
void ReadDeclared(const OutputAsk& ask, const ModelFolder* folder, const OptionSpelling& s,
                  OutputChoice& c) {
  const std::string model = s.given("pool", "model");
  if (!IsSentenceTransformersFolder(folder)) {
    throw Error(model + " needs a sentence-transformers folder (one with modules.json), " +
                (folder ? folder->dir() + " has none" : std::string("and the model has none")) +
                "; give " + s.name("pool") + " mean, cls, max, last or mean_sqrt_len");
  }
  PoolSpec declared;
  try {
    declared = DeclaredPooling(*folder);
  } catch (const Error& e) {
    if (!ask.pool_defaulted) throw;
    throw Error(std::string(e.what()) + " (" + model +
                " is the default for a sentence-transformers folder; " + s.given("pool", "none") +
                " gives every row)");
  }
  c.pool = declared.pooling;
  c.normalize = declared.normalize || ask.normalize;
  c.sentence_dense = declared.dense;
}

}  // namespace

const OptionSpelling kCliSpelling{CliName, CliGiven, "line"};
const OptionSpelling kPythonSpelling{PythonName, PythonGiven, "sequence"};

HeadOutput OutputChoice::head() const {
  switch (stage) {
    case EncoderStage::kPooler:
      return HeadOutput::kPooler;
    case EncoderStage::kLogits:
      return HeadOutput::kLogits;
    default:
      return HeadOutput::kNone;
  }
}

OutputChoice ResolveOutput(const OutputAsk& ask, const ModelFolder* folder,
                           const OptionSpelling& s) {
  OutputChoice c;
  c.stage = ask.stage;
  c.packed = ask.packed;
  if (ask.pool == "model") {
    ReadDeclared(ask, folder, s, c);
  } else {
    try {
      c.pool = ParsePooling(ask.pool);
    } catch (const Error&) {
      throw UsageError(s.name("pool") +
                       " must be none, mean, cls, max, last, mean_sqrt_len or model, got '" +
                       ask.pool + "'");
    }
    c.normalize = ask.normalize;
  }
  const std::string stage = s.given("stage", ask.stage_text), unit = s.unit;
  const std::string pool = s.given("pool", ask.pool);
  if (c.head() != HeadOutput::kNone && c.pool != Pooling::kNone) {
    throw UsageError(stage + " and " + pool + " do not go together: the head reads each " + unit +
                     "'s first token (give " + s.given("pool", "none") + ")");
  }
  if (c.head() != HeadOutput::kNone && c.packed) {
    throw UsageError(stage + " and " + s.given("packed", "") +
                     " do not go together: a head gives one row a " + unit);
  }
  if (c.normalize && c.pool == Pooling::kNone) {
    throw UsageError(s.given("normalize", "") + " needs a pool (" + s.name("pool") +
                     " mean, cls, max, last, mean_sqrt_len or model): without one every token's "
                     "row is returned");
  }
  if (c.packed && c.pool != Pooling::kNone) {
    throw UsageError(s.given("packed", "") + " and " + pool +
                     " do not go together: pooled rows are one a " + unit);
  }
  return c;
}

}  // namespace phasor

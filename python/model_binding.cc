// phasor.Model: a model directory, encoded from NumPy token ids.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "commands/encode_job.h"
#include "commands/option_checks.h"
#include "commands/output_choice.h"
#include "engine/model_folder.h"
#include "engine/size_limits.h"
#include "models/input_rules.h"
#include "models/length_rule.h"
#include "models/phasor.h"
#include "models/sentence_transformers.h"
#include "python/bindings.h"
#include "python/convert.h"
#include "python/encode.h"
#include "python/texts.h"
#include "tokenizers/tokenizer.h"

namespace phasor::python {

// Model.tokenize (tokenizer_binding.cc).
py::dict ModelTokenize(py::handle self, const py::args& args, const py::kwargs& kwargs);

namespace {

Model LoadModel(py::handle path, py::handle pe_mode, py::handle precision) {
  std::string dir;
  try {
    // os.fsdecode: str, bytes and os.PathLike alike (b"/m" names the directory /m).
    dir = py::module_::import("os").attr("fsdecode")(path).cast<std::string>();
  } catch (py::error_already_set&) {
    throw Error("path must be a str, bytes or os.PathLike, got " +
                py::str(py::type::handle_of(path).attr("__name__")).cast<std::string>());
  }
  if (dir.find('\0') != std::string::npos) {
    throw Error("path " + py::repr(py::str(dir)).cast<std::string>() +
                " holds a NUL character, which no file name can");
  }
  LoadOptions options;
  if (!pe_mode.is_none()) {
    options.pe_mode = ParseOption("pe_mode", ToStr(pe_mode, "pe_mode"), ParsePeMode);
  }
  options.precision = ParseOption("precision", ToStr(precision, "precision"), ParsePrecision);
  Model model = [&] {
    py::gil_scoped_release release;
    return Model::Load(dir, options);
  }();
  for (const std::string& w : model.load_warnings()) Warn(w);
  return model;
}

// The options of r that do not depend on the input: stage, pooling, budget.
// pool: None or "none" (every row), "mean", "cls", "max", "last",
// "mean_sqrt_len", or "model" (what a sentence-transformers folder declares).
EncodeOptions OptionsOf(const Model& model, const EncodeRequest& r) {
  const EncoderStage stage = ParseStage("stage", r.stage);
  const std::string pool = r.pool.is_none() ? "none" : ToStr(r.pool, "pool");
  const OutputChoice c = ResolveOutput({stage, r.stage, pool, false, r.normalize, r.packed},
                                       model.folder(), kPythonSpelling);
  EncodeOptions options;
  options.embeddings_only = stage == EncoderStage::kEmbeddings;
  options.head = c.head();
  options.pool = c.pool;
  options.normalize = c.normalize;
  options.sentence_dense = c.sentence_dense;
  options.truncate = r.truncate.value_or(false);
  options.batch_tokens = r.batch_tokens;
  CheckRange("batch_tokens", options.batch_tokens, 0, kMaxBatchTokens);
  return options;
}

std::shared_ptr<const tokenizers::Tokenizer> TokenizerFor(const Model& model, py::handle input) {
  try {
    py::gil_scoped_release release;
    return model.tokenizer();
  } catch (const Error& e) {
    // Say what was given too: ids written as a str ("3 14 15") come here.
    throw Error(std::string("ids is text (") +
                (py::isinstance<py::str>(input) ? "a str" : "a list of str") +
                "), which needs the model folder's own tokenizer: " + e.what() +
                "; token ids go as integers");
  }
}

// Texts as ids by the folder's own tokenizer, cut or refused at the length
// rule's limit (models/length_rule.h); a pair's types into types.
Ids TextIds(const Model& model, const EncodeRequest& r, std::vector<int32_t>& types) {
  if (!r.lengths.is_none()) throw Error("lengths goes with array ids, not with texts");
  if (!r.token_type_ids.is_none())
    throw Error("token_type_ids goes with ids; texts take theirs from the tokenizer");
  const auto tokenizer = TokenizerFor(model, r.input);
  const LengthRule rule = TextLengthRule(model, tokenizer.get(), r.truncate, r.max_seq_length);
  const py::object cut = CutOf(rule);
  const TextOptions o =
      ToTextOptions(model.folder(), *tokenizer,
                    TextArgs{py::bool_(true), py::bool_(false), cut, r.prompt, r.prefix}, -1);
  Texts texts = ToTexts(r.input);
  texts.first = r.first_index;
  TokenizedLines lines = TokenizeTexts(*tokenizer, texts, o);
  CheckRange("tokens of all texts", static_cast<int64_t>(lines.batch.ids.size()), 1,
             kMaxBatchTokens);
  for (int64_t b = 0; b < lines.batch.batch && !rule.truncate && rule.limit > 0; ++b) {
    if (lines.batch.lengths[b] <= rule.limit) continue;
    throw Error(TooLongMessage(texts.Name(b), lines.batch.lengths[b], rule,
                               "truncate=True cuts it to its first " + std::to_string(rule.limit)));
  }
  Ids ids;
  ids.form = texts.one ? Ids::Form::kOne : Ids::Form::kList;
  ids.batch = lines.batch.batch;
  ids.seq = lines.batch.seq;
  ids.ids = std::move(lines.batch.ids);
  ids.offsets = std::move(lines.batch.offsets);
  if (texts.pairs() && model.token_types() >= 2) types = std::move(lines.batch.types);
  return ids;
}

// A padded array with lengths, asked for packed rows: its real tokens packed.
void PackByLengths(const std::vector<int64_t>& lengths, Ids& ids, std::vector<int32_t>& types) {
  std::vector<int32_t> kept, kept_types;
  std::vector<int64_t> offsets = {0};
  for (int64_t b = 0; b < ids.batch; ++b) {
    const int64_t from = b * ids.seq, to = from + lengths[b];
    kept.insert(kept.end(), ids.ids.begin() + from, ids.ids.begin() + to);
    if (!types.empty())
      kept_types.insert(kept_types.end(), types.begin() + from, types.begin() + to);
    offsets.push_back(static_cast<int64_t>(kept.size()));
  }
  ids.ids = std::move(kept);
  ids.offsets = std::move(offsets);
  types = std::move(kept_types);
}

// Runs the model into out with the GIL released. Ctrl-C: Python's handler
// only notes the signal; a call from the main thread (the only one Python
// runs signal handlers on) asks after every layer, raising what the handler
// raises (KeyboardInterrupt) at once. Other threads never take the GIL back
// mid-call.
void Run(const Model& model, const Ids& ids, bool by_offsets, EncodeOptions options, float* out) {
  std::string warning;
  options.warning = &warning;
  bool interrupted = false;
  const py::module_ threading = py::module_::import("threading");
  if (threading.attr("current_thread")().is(threading.attr("main_thread")())) {
    options.cancelled = [&interrupted] {
      py::gil_scoped_acquire gil;
      interrupted = PyErr_CheckSignals() != 0;  // the exception stays set on this thread
      return interrupted;
    };
  }
  try {
    // Every Python object was read before; ids are the module's own copy.
    py::gil_scoped_release release;
    ApplyNumThreads();
    if (by_offsets) {
      model.EncodePacked(ids.ids.data(), ids.offsets.data(), ids.batch, out, options);
    } else {
      model.Encode(ids.ids.data(), ids.batch, ids.seq, out, options);
    }
  } catch (const Cancelled&) {
    if (interrupted) throw py::error_already_set();
    throw;
  }
  if (!warning.empty()) Warn(warning);
}

}  // namespace

LengthRule TextLengthRule(const Model& model, const tokenizers::Tokenizer* tokenizer,
                          std::optional<bool> truncate, int64_t max_seq_length) {
  LengthRule rule = ResolveLengthRule(model.folder(), tokenizer, model.max_sequence_length(),
                                      model.max_sequence_length_of(), truncate);
  if (max_seq_length > 0) {
    rule.limit = max_seq_length;
    rule.limit_of = "max_seq_length " + std::to_string(max_seq_length) + " set on the model";
  }
  return rule;
}

py::object CutOf(const LengthRule& rule) {
  if (!rule.truncate || rule.limit <= 0 || rule.limit > kMaxBatchTokens) return py::none();
  return py::int_(rule.limit);
}

py::object EncodeModel(const Model& model, const EncodeRequest& r) {
  EncodeOptions options = OptionsOf(model, r);
  const bool pooled = options.pool != Pooling::kNone || options.head != HeadOutput::kNone;
  const int64_t d = model.d_model();
  Ids ids;
  std::vector<int64_t> lengths;
  std::vector<int32_t> types;
  if (IsTexts(r.input)) {
    ids = TextIds(model, r, types);
  } else {
    if (!r.prompt.is_none() || !r.prefix.is_none())
      throw Error("prompt and prefix go with texts, not with ids");
    ids = ToIds(r.input, model.vocab_size(), d, kMaxBatchTokens, kMaxOutputValues, pooled);
    if (!r.lengths.is_none()) lengths = ToLengths(r.lengths, ids);
    if (!r.token_type_ids.is_none()) {
      types = ToTokenTypes(r.token_type_ids, ids, std::max<int64_t>(model.token_types(), 1));
    }
  }
  if (r.packed && !lengths.empty()) PackByLengths(lengths, ids, types);
  options.token_types = types.empty() ? nullptr : types.data();
  options.lengths = lengths.empty() ? nullptr : lengths.data();
  const bool by_offsets = r.packed || ids.form == Ids::Form::kList;

  // The output, allocated with the GIL held, before the GIL is released.
  std::vector<py::ssize_t> shape;
  if (pooled) {
    shape = {ids.batch, model.output_dim(options)};  // d_model, a head's or a Dense's width
  } else if (by_offsets) {
    shape = {ids.offsets.back(), d};
  } else {
    shape = {ids.batch, ids.seq, d};
  }
  if (ids.form == Ids::Form::kOne && !r.packed) shape.erase(shape.begin());
  py::array_t<float> out(shape);
  Run(model, ids, by_offsets, options, out.mutable_data());
  if (r.packed) {
    py::array_t<int64_t> offsets(static_cast<py::ssize_t>(ids.offsets.size()));
    std::copy(ids.offsets.begin(), ids.offsets.end(), offsets.mutable_data());
    return py::make_tuple(out, offsets);
  }
  if (ids.form != Ids::Form::kList || pooled) return out;
  py::list rows;  // [len_b, d_model] each: views of one array
  for (int64_t b = 0; b < ids.batch; ++b) {
    rows.append(out[py::slice(ids.offsets[b], ids.offsets[b + 1], 1)]);
  }
  return rows;
}

// phasor._input_rules: models/input_rules.h for the Dask tools, which check a
// tokens file as the CLI does, naming its lines; with a model, its positions
// bound a line too (cut to them with truncate).
py::tuple InputRules(const std::vector<std::vector<int32_t>>& sequences, py::handle pad_in,
                     const std::string& input, const std::vector<int64_t>& line_numbers,
                     py::handle model_in, bool truncate) {
  SequenceRules rules;
  if (!pad_in.is_none()) rules.pad_id = static_cast<int32_t>(ToInt(pad_in, "pad_token_id"));
  if (!model_in.is_none()) {
    const Model& model = model_in.cast<const Model&>();
    rules.max_length = model.max_sequence_length();
    rules.max_length_of = model.max_sequence_length_of();
    rules.truncate = truncate;
  }
  rules.unit = "line";
  const auto batch = static_cast<int64_t>(sequences.size());
  if (static_cast<int64_t>(line_numbers.size()) != batch) {
    throw Error("line_numbers must hold one number per sequence");
  }
  std::vector<int32_t> ids;
  std::vector<int64_t> start, given;
  for (const auto& s : sequences) {
    start.push_back(static_cast<int64_t>(ids.size()));
    given.push_back(static_cast<int64_t>(s.size()));
    ids.insert(ids.end(), s.begin(), s.end());
  }
  const RealTokens real = ResolveRealTokens(
      ids.data(), Spans{start.data(), given.data(), batch, nullptr}, rules, input,
      [&](int64_t b) { return input + ": line " + std::to_string(line_numbers[b]); });
  return py::make_tuple(real.lengths, real.warning);
}

void BindModel(py::module_& m) {
  m.def("_input_rules", &InputRules, py::arg("sequences"), py::arg("pad_token_id"),
        py::arg("input"), py::arg("line_numbers"), py::arg("model") = py::none(),
        py::arg("truncate") = false,
        "The input rules of the CLI (README 'Valid input') for the lines of a tokens file: "
        "(real lengths, warning or ''); phasor.Error for a line of pad ids only, and with a "
        "model for a line longer than its positions unless truncate.");
  py::class_<Model> model(
      m, "Model", py::dynamic_attr(),
      "An encoder model directory (config.json, model.safetensors). Its methods "
      "may be called from several Python threads at once.");
  model
      .def(py::init(&LoadModel), py::arg("path"), py::arg("pe_mode") = py::none(),
           py::arg("precision") = "fp32",
           "Loads the model directory path; pe_mode ('cached', 'on_the_fly' or 'auto') "
           "replaces the config's positional mode; precision ('fp32', 'bf16' or 'int8') is "
           "the number format of the weight products.")
      .def_property_readonly("vocab_size", &Model::vocab_size)
      .def_property_readonly("d_model", &Model::d_model)
      .def_property_readonly("n_layers", &Model::n_layers)
      .def_property_readonly("pad_token_id",
                             [](const Model& model) -> py::object {
                               const auto pad = model.pad_token_id();
                               return pad ? py::object(py::int_(*pad)) : py::object(py::none());
                             })
      .def_property_readonly("position_offset", &Model::position_offset)
      .def_property_readonly("token_types", &Model::token_types,
                             "Token types the model has (BERT's segments), 0 if none.")
      .def_property_readonly(
          "max_sequence_length", &Model::max_sequence_length,
          "The model's positions: the longest token ids sequence it can encode. Text is cut or "
          "refused at max_seq_length, which may be less (the tokenizer's model_max_length, a "
          "sentence-transformers folder's max_seq_length).")
      .def_property_readonly("precision",
                             [](const Model& model) { return ToString(model.precision()); })
      .def_property_readonly("weight_bytes", &Model::weight_bytes,
                             "Bytes the weights take in memory at the model's precision.")
      .def_property_readonly(
          "config",
          [](const Model& model) {
            return py::module_::import("json").attr("loads")(model.config_json());
          },
          "The configuration as a dict: every key of config.json, defaults filled in.")
      .def("tokenize", &ModelTokenize,
           "tokenize(texts, add_special_tokens=True, truncate=None, max_length=None, "
           "prompt=None, prefix=None)\n\n"
           "The model folder's own tokenizer on texts, as phasor.Tokenizer.tokenize, cut as "
           "Model.encode cuts text: at max_seq_length (the least of the tokenizer's "
           "model_max_length, a sentence-transformers folder's max_seq_length and the model's "
           "positions) by default for a sentence-transformers folder or with truncate=True, "
           "not with truncate=False; max_length cuts there instead.")
      .def("__repr__", [](const Model& model) {
        return "phasor.Model(vocab_size=" + std::to_string(model.vocab_size()) +
               ", d_model=" + std::to_string(model.d_model()) +
               ", n_layers=" + std::to_string(model.n_layers()) + ", precision='" +
               ToString(model.precision()) + "')";
      });
  BindSentenceTransformers(model);
}

}  // namespace phasor::python

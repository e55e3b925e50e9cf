// phasor.Model: a model directory, encoded from NumPy token ids.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "models/commands/encode_job.h"
#include "models/commands/option_checks.h"
#include "models/input_rules.h"
#include "models/phasor.h"
#include "models/sentence_transformers.h"
#include "models/tokenizers/tokenizer.h"
#include "python/bindings.h"
#include "python/convert.h"
#include "python/texts.h"

namespace phasor::python {

// NOLINTNEXTLINE(readability-function-size): one parameter per Python keyword argument.
py::dict ModelTokenize(const Model& model, py::handle texts, py::handle add_special_tokens,
                       py::handle truncate, py::handle max_length, py::handle prompt,
                       py::handle prefix);  // tokenizer_binding.cc

namespace {

// Largest batch of one call, as Model::Encode's (checked here before the
// output is allocated).
constexpr int64_t kMaxTokens = int64_t{1} << 26;

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

// pool: None or "none" (every row), "mean", "cls", "max", "last",
// "mean_sqrt_len", or "model" (what a sentence-transformers folder declares).
PoolSpec ToPooling(const Model& model, py::handle pool, bool normalize) {
  if (pool.is_none()) return PoolSpec{Pooling::kNone, normalize};
  const std::string name = ToStr(pool, "pool");
  if (name == "model") {
    PoolSpec declared = DeclaredPooling(model.directory());
    declared.normalize = declared.normalize || normalize;
    return declared;
  }
  return PoolSpec{ParseOption("pool", name, ParsePooling), normalize};
}

// NOLINTNEXTLINE(readability-function-size): one parameter per Python keyword argument.
py::object Encode(const Model& model, py::handle ids_in, py::handle lengths_in, py::handle stage_in,
                  py::handle pool_in, py::handle normalize_in, py::handle packed_in,
                  py::handle batch_tokens_in, py::handle truncate_in, py::handle types_in,
                  py::handle prompt_in, py::handle prefix_in) {
  EncodeOptions options;
  const std::string stage_name = ToStr(stage_in, "stage");
  const EncoderStage stage = ParseStage("stage", stage_name);
  options.embeddings_only = stage == EncoderStage::kEmbeddings;
  options.head = stage == EncoderStage::kPooler   ? HeadOutput::kPooler
                 : stage == EncoderStage::kLogits ? HeadOutput::kLogits
                                                  : HeadOutput::kNone;
  if (!py::isinstance<py::bool_>(normalize_in)) {
    throw Error("normalize must be True or False, got " +
                py::str(py::type::handle_of(normalize_in).attr("__name__")).cast<std::string>());
  }
  const PoolSpec pooling = ToPooling(model, pool_in, normalize_in.cast<bool>());
  options.pool = pooling.pooling;
  options.normalize = pooling.normalize;
  options.sentence_dense = pooling.dense;
  if (options.head != HeadOutput::kNone && options.pool != Pooling::kNone) {
    throw Error("stage='" + stage_name + "' and pool='" + ToStr(pool_in, "pool") +
                "' do not go together: the head reads each sequence's first token");
  }
  if (options.normalize && options.pool == Pooling::kNone) {
    throw Error("normalize=True needs pool='mean', 'cls' or 'max'");
  }
  if (!py::isinstance<py::bool_>(packed_in)) throw Error("packed must be True or False");
  const bool packed = packed_in.cast<bool>();
  const bool pooled = options.pool != Pooling::kNone || options.head != HeadOutput::kNone;
  if (packed && pooled)
    throw Error("packed=True and pool do not go together: pooled rows are one a sequence");
  if (!py::isinstance<py::bool_>(truncate_in)) throw Error("truncate must be True or False");
  options.truncate = truncate_in.cast<bool>();
  options.batch_tokens = ToInt(batch_tokens_in, "batch_tokens");
  CheckRange("batch_tokens", options.batch_tokens, 0, kMaxTokens);
  const int64_t d = model.d_model();
  Ids ids;
  std::vector<int64_t> lengths;
  std::vector<int32_t> types;
  if (IsTexts(ids_in)) {
    // Text: the model folder's own tokenizer gives the ids (and a pair's types).
    if (!lengths_in.is_none()) throw Error("lengths goes with array ids, not with texts");
    if (!types_in.is_none())
      throw Error("token_type_ids goes with ids; texts take theirs from the tokenizer");
    std::shared_ptr<const tokenizers::Tokenizer> tokenizer;
    try {
      py::gil_scoped_release release;
      tokenizer = model.tokenizer();
    } catch (const Error& e) {
      // Say what was given too: ids written as a str ("3 14 15") come here.
      throw Error(std::string("ids is text (") +
                  (py::isinstance<py::str>(ids_in) ? "a str" : "a list of str") +
                  "), which needs the model folder's own tokenizer: " + e.what() +
                  "; token ids go as integers");
    }
    const TextOptions o =
        ToTextOptions(model.directory(), *tokenizer,
                      TextArgs{py::bool_(true), truncate_in, py::none(), prompt_in, prefix_in},
                      model.max_sequence_length());
    const Texts texts = ToTexts(ids_in);
    TokenizedLines lines = TokenizeTexts(*tokenizer, texts, o);
    CheckRange("tokens of all texts", static_cast<int64_t>(lines.batch.ids.size()), 1, kMaxTokens);
    ids.form = texts.one ? Ids::Form::kOne : Ids::Form::kList;
    ids.batch = lines.batch.batch;
    ids.seq = lines.batch.seq;
    ids.ids = std::move(lines.batch.ids);
    ids.offsets = std::move(lines.batch.offsets);
    if (texts.pairs() && model.token_types() >= 2) types = std::move(lines.batch.types);
  } else {
    if (!prompt_in.is_none() || !prefix_in.is_none())
      throw Error("prompt and prefix go with texts, not with ids");
    ids = ToIds(ids_in, model.vocab_size(), d, kMaxTokens, kMaxOutputValues, pooled);
    if (!lengths_in.is_none()) lengths = ToLengths(lengths_in, ids);
    if (!types_in.is_none()) {
      types = ToTokenTypes(types_in, ids, std::max<int64_t>(model.token_types(), 1));
    }
  }
  // A padded array with lengths, asked for packed rows: its real tokens packed.
  if (packed && !lengths.empty()) {
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
  options.token_types = types.empty() ? nullptr : types.data();
  const bool by_offsets = packed || ids.form == Ids::Form::kList;
  const int64_t total = ids.offsets.back();

  // The output, allocated with the GIL held, before the GIL is released.
  std::vector<py::ssize_t> shape;
  if (pooled) {
    shape = {ids.batch, model.output_dim(options)};  // d_model, a head's or a Dense's width
  } else if (by_offsets) {
    shape = {total, d};
  } else {
    shape = {ids.batch, ids.seq, d};
  }
  if (ids.form == Ids::Form::kOne && !packed) shape.erase(shape.begin());
  py::array_t<float> out(shape);
  options.lengths = lengths.empty() ? nullptr : lengths.data();
  std::string warning;
  options.warning = &warning;
  float* out_data = out.mutable_data();
  // Ctrl-C: Python's handler only notes the signal; a call from the main
  // thread (the only one Python runs signal handlers on) asks after every
  // layer, raising what the handler raises (KeyboardInterrupt) at once. Other
  // threads never take the GIL back mid-call.
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
    // Every Python object was read above; ids are the module's own copy.
    py::gil_scoped_release release;
    ApplyNumThreads();
    if (by_offsets) {
      model.EncodePacked(ids.ids.data(), ids.offsets.data(), ids.batch, out_data, options);
    } else {
      model.Encode(ids.ids.data(), ids.batch, ids.seq, out_data, options);
    }
  } catch (const Cancelled&) {
    if (interrupted) throw py::error_already_set();
    throw;
  }
  if (!warning.empty()) Warn(warning);
  if (packed) {
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

}  // namespace

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
  py::class_<Model>(m, "Model",
                    "An encoder model directory (config.json, model.safetensors). Its methods "
                    "may be called from several Python threads at once.")
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
      .def_property_readonly("max_sequence_length", &Model::max_sequence_length)
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
      .def("encode", &Encode, py::arg("ids"), py::arg("lengths") = py::none(),
           py::arg("stage") = "final", py::arg("pool") = py::none(), py::arg("normalize") = false,
           py::arg("packed") = false, py::arg("batch_tokens") = 0, py::arg("truncate") = false,
           py::arg("token_type_ids") = py::none(), py::arg("prompt") = py::none(),
           py::arg("prefix") = py::none(),
           "ids: a str, a list of str or of (str, str) pairs (tokenized by the model folder's "
           "own tokenizer, as Model.tokenize; prompt and prefix as there; returns as for a list "
           "of sequences, [seq, d_model] for one str), or [batch, seq] integers (any integer "
           "dtype, or a list of equal-length lists), "
           "[seq] for one sequence, or a list of 1-D sequences of different lengths. lengths: "
           "[batch] tokens per sequence of array ids, the rest masked as padding. Only real "
           "tokens are computed, in batches of at most batch_tokens (0: 2048, or the longest "
           "sequence). Returns float32 [batch, seq, d_model] ([seq, d_model] for 1-D ids; a "
           "list of [len_i, d_model] arrays for a list of different lengths): the final hidden "
           "states, or with stage='embeddings' the encoder's input; padding rows are 0. "
           "pool='mean', 'cls' or 'max': one row per sequence, [batch, d_model] (normalize=True: "
           "unit L2 norm); pool='model': what a sentence-transformers folder declares (its "
           "Dense modules too: [batch, out_features]). stage='pooler' (BERT's pooler output, "
           "[batch, d_model]) or stage='logits' (a classification checkpoint's head, [batch, "
           "num_labels]): one row per sequence from its first token, without pool. packed=True: "
           "(rows [total tokens, d_model], offsets [batch + 1]). "
           "Trailing pad ids inside given lengths or list items warn (phasor.Warning). A "
           "sequence past the model's positions (max_sequence_length) is an error unless "
           "truncate=True, which keeps its first tokens. token_type_ids: laid out as ids (a list "
           "of sequences for a list), each token's type (BERT's segments: 0 for a pair's first "
           "text, 1 for its second); None: all 0.")
      .def("tokenize", &ModelTokenize, py::arg("texts"), py::arg("add_special_tokens") = true,
           py::arg("truncate") = false, py::arg("max_length") = py::none(),
           py::arg("prompt") = py::none(), py::arg("prefix") = py::none(),
           "The model folder's own tokenizer on texts, as phasor.Tokenizer.tokenize; truncate "
           "cuts to the tokenizer's model_max_length and the model's max_sequence_length.")
      .def("__repr__", [](const Model& model) {
        return "phasor.Model(vocab_size=" + std::to_string(model.vocab_size()) +
               ", d_model=" + std::to_string(model.d_model()) +
               ", n_layers=" + std::to_string(model.n_layers()) + ", precision='" +
               ToString(model.precision()) + "')";
      });
}

}  // namespace phasor::python

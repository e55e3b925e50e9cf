#include "python/texts.h"

#include "commands/option_checks.h"
#include "commands/tokenize_job.h"
#include "engine/error.h"
#include "python/bindings.h"
#include "python/convert.h"

namespace phasor::python {
namespace {

std::string TypeName(py::handle v) {
  return py::str(py::type::handle_of(v).attr("__name__")).cast<std::string>();
}

bool IsPair(py::handle v) {
  return (py::isinstance<py::tuple>(v) || py::isinstance<py::list>(v)) && py::len(v) == 2 &&
         py::isinstance<py::str>(py::reinterpret_borrow<py::sequence>(v)[0]);
}

// A str as UTF-8; Error naming it for a lone surrogate, which UTF-8 cannot hold.
std::string Utf8(py::handle s, const std::string& name) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(s.ptr(), &size);
  if (!data) {
    PyErr_Clear();
    throw Error(name + " is not valid text: it holds a lone surrogate, which UTF-8 cannot encode");
  }
  return std::string(data, static_cast<size_t>(size));
}

}  // namespace

bool IsTexts(py::handle value) {
  if (py::isinstance<py::str>(value)) return true;
  if (!(py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value))) return false;
  if (py::len(value) == 0) return false;
  const py::handle first = py::reinterpret_borrow<py::sequence>(value)[0];
  return py::isinstance<py::str>(first) || IsPair(first);
}

Texts ToTexts(py::handle value) {
  Texts t;
  if (py::isinstance<py::str>(value)) {
    t.one = true;
    t.a.push_back(Utf8(value, "the text"));
    return t;
  }
  const auto items = py::reinterpret_borrow<py::sequence>(value);
  const bool pairs = IsPair(items[0]);
  const size_t n = py::len(items);
  t.a.reserve(n);
  if (pairs) t.b.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const py::handle item = items[i];
    const std::string name = "texts[" + std::to_string(i) + "]";
    if (pairs) {
      if (!IsPair(item) || !py::isinstance<py::str>(py::reinterpret_borrow<py::sequence>(item)[1]))
        throw Error(name + " must be a (str, str) pair like texts[0], got " + TypeName(item));
      const auto pair = py::reinterpret_borrow<py::sequence>(item);
      t.a.push_back(Utf8(pair[0], name + "[0]"));
      t.b.push_back(Utf8(pair[1], name + "[1]"));
    } else {
      if (!py::isinstance<py::str>(item))
        throw Error(name + " must be a str like texts[0], got " + TypeName(item));
      t.a.push_back(Utf8(item, name));
    }
  }
  return t;
}

TokenizedLines TokenizeTexts(const tokenizers::Tokenizer& tokenizer, const Texts& texts,
                             const TextOptions& options) {
  std::vector<std::string_view> a(texts.a.begin(), texts.a.end());
  std::vector<std::string_view> b(texts.b.begin(), texts.b.end());
  py::gil_scoped_release release;
  ApplyNumThreads();
  return TokenizeTexts(tokenizer, a, texts.pairs() ? &b : nullptr, options,
                       [&](int64_t i) { return texts.Name(i); });
}

TextOptions ToTextOptions(const ModelFolder* folder, const tokenizers::Tokenizer& tokenizer,
                          const TextArgs& args, int64_t model_limit) {
  const py::handle add_special_tokens = args.add_special_tokens, truncate = args.truncate,
                   max_length = args.max_length, prompt = args.prompt, prefix = args.prefix;
  if (!py::isinstance<py::bool_>(add_special_tokens))
    throw Error("add_special_tokens must be True or False, got " + TypeName(add_special_tokens));
  if (!py::isinstance<py::bool_>(truncate))
    throw Error("truncate must be True or False, got " + TypeName(truncate));
  const int64_t length = max_length.is_none() ? 0 : ToInt(max_length, "max_length");
  if (!max_length.is_none()) CheckRange("max_length", length, 1, int64_t{1} << 30);
  const std::string prompt_name = prompt.is_none() ? "" : ToStr(prompt, "prompt");
  const std::string prefix_text = prefix.is_none() ? "" : ToStr(prefix, "prefix");
  if (!prompt_name.empty() && !prefix_text.empty())
    throw Error("prompt and prefix do not go together: give one");
  TextRequest r;
  r.no_special = !add_special_tokens.cast<bool>();
  r.truncate = truncate.cast<bool>();
  r.max_length = length;
  r.prompt = prompt_name;
  r.prefix = prefix_text;
  return TextOptionsOf(folder, r, tokenizer, model_limit);
}

py::dict EncodingsToDict(const TokenizedLines& lines, bool one, bool offsets) {
  const TokenBatch& b = lines.batch;
  py::list ids, types;
  for (int64_t i = 0; i < b.batch; ++i) {
    py::list row_ids, row_types;
    for (int64_t k = b.offsets[i]; k < b.offsets[i + 1]; ++k) {
      row_ids.append(b.ids[k]);
      row_types.append(b.types.empty() ? 0 : b.types[k]);
    }
    ids.append(row_ids);
    types.append(row_types);
  }
  py::dict out;
  out["input_ids"] = one ? ids[0] : py::object(ids);
  out["token_type_ids"] = one ? types[0] : py::object(types);
  if (offsets) {
    py::list spans;
    for (int64_t i = 0; i < b.batch; ++i) {
      py::list row;
      for (int64_t k = b.offsets[i]; k < b.offsets[i + 1]; ++k) {
        const auto& [s, e] = lines.spans[static_cast<size_t>(k)];
        row.append(py::make_tuple(s, e));
      }
      spans.append(row);
    }
    out["offset_mapping"] = one ? spans[0] : py::object(spans);
  }
  return out;
}

}  // namespace phasor::python

#include "python/convert.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "models/input_rules.h"
#include "models/phasor.h"

namespace phasor::python {
namespace {

std::string TypeName(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

bool IsBool(py::handle value) {
  return py::isinstance<py::bool_>(value) ||
         py::isinstance(value, py::module_::import("numpy").attr("bool_"));
}

std::string ShapeText(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    s += std::to_string(a.shape(i)) + (a.ndim() == 1 || i + 1 < a.ndim() ? "," : "");
    if (i + 1 < a.ndim()) s += " ";
  }
  return s + ")";
}

// value as a NumPy array, or Error naming what could not be read.
py::array AsArray(py::handle value, const std::string& name) {
  if (py::isinstance<py::array>(value)) return py::reinterpret_borrow<py::array>(value);
  try {
    return py::module_::import("numpy").attr("asarray")(value);
  } catch (py::error_already_set& e) {
    throw Error(name + " cannot be read as an array: " + std::string(e.what()));
  }
}

char Kind(const py::array& a) { return a.dtype().kind(); }

// a < b for Python objects (ints of any size).
bool Less(py::handle a, py::handle b) {
  const int r = PyObject_RichCompareBool(a.ptr(), b.ptr(), Py_LT);
  if (r < 0) throw py::error_already_set();
  return r == 1;
}

}  // namespace

int64_t ToInt(py::handle value, const std::string& name) {
  if (!IsBool(value)) {
    try {
      const py::object index = py::module_::import("operator").attr("index")(value);
      const auto v = index.cast<py::int_>();
      if (!Less(v, py::int_(std::numeric_limits<int64_t>::min())) &&
          !Less(py::int_(std::numeric_limits<int64_t>::max()), v)) {
        return v.cast<int64_t>();
      }
      throw Error(name + " is out of range, got " + py::repr(v).cast<std::string>());
    } catch (py::error_already_set&) {
    }
  }
  throw Error(name + " must be an integer, got " + TypeName(value));
}

double ToDouble(py::handle value, const std::string& name) {
  if (!IsBool(value)) {
    try {
      return py::module_::import("operator").attr("index")(value).cast<double>();
    } catch (py::error_already_set&) {
    }
    if (py::isinstance<py::float_>(value) ||
        py::isinstance(value, py::module_::import("numpy").attr("floating"))) {
      return value.cast<double>();
    }
  }
  throw Error(name + " must be a number, got " + TypeName(value));
}

std::string ToStr(py::handle value, const std::string& name) {
  if (!py::isinstance<py::str>(value)) {
    throw Error(name + " must be a string, got " + TypeName(value));
  }
  return value.cast<std::string>();
}

namespace {

// What CopyIds copies, for its messages: ids (token ids, [0, vocab_size)) or
// token types ([0, the model's token types)).
struct IdKind {
  const char* arg;    // "ids", "token_type_ids"
  const char* value;  // "token id", "token type"
  const char* range;  // "the vocabulary", "the model's token types"
  int64_t end;        // values lie in [0, end)
};

// "token id X at sequence b, position j is outside the vocabulary [0, V)".
[[noreturn]] void ThrowOutOfRange(const IdKind& k, const std::string& id, int64_t b, int64_t j) {
  throw Error(std::string(k.value) + " " + id + " at sequence " + std::to_string(b) +
              ", position " + std::to_string(j) + " is outside " + k.range + " [0, " +
              std::to_string(k.end) + ")");
}

IdKind IdsOf(int64_t vocab) { return {"ids", "token id", "the vocabulary", vocab}; }

// a: an integer array of n ids, [rows, row_len] in C order once flattened,
// sequence first_seq + r in row r. Copies it into to (n int32 values) after
// checking every value against [0, k.end). The copy is made first, into an array
// of the module's own, so that a caller's thread writing into a meanwhile can
// change nothing that was checked.
void CopyIds(const py::array& a, int64_t row_len, int64_t first_seq, const IdKind& k, int32_t* to) {
  const int64_t vocab = k.end;
  py::module_ np = py::module_::import("numpy");
  const int64_t n = a.size();
  if (n == 0) return;
  const char kind = Kind(a);
  if (kind == 'O') {  // Python ints of any size: each converted, or named
    const py::list values = a.attr("reshape")(-1).attr("tolist")();
    for (int64_t i = 0; i < n; ++i) {
      const py::handle v = values[static_cast<size_t>(i)];
      if (!py::isinstance<py::int_>(v) || IsBool(v)) {
        throw Error(std::string(k.arg) + " must be integers, got " + TypeName(v) + " at sequence " +
                    std::to_string(first_seq + i / row_len) + ", position " +
                    std::to_string(i % row_len));
      }
      if (Less(v, py::int_(0)) || !Less(v, py::int_(vocab))) {
        ThrowOutOfRange(k, py::str(v).cast<std::string>(), first_seq + i / row_len, i % row_len);
      }
      to[i] = v.cast<int32_t>();
    }
    return;
  }
  // The module's own copy, C order, in the caller's dtype (a cast first could
  // wrap a value into the vocabulary).
  const py::array own = np.attr("array")(a, py::arg("copy") = true, py::arg("order") = "C");
  const py::object lo = own.attr("min")(), hi = own.attr("max")();
  if (Less(lo, py::int_(0)) || !Less(hi, py::int_(vocab))) {
    const py::array bad =
        np.attr("logical_or")(np.attr("less")(own, 0), np.attr("greater_equal")(own, vocab));
    const int64_t flat = np.attr("argmax")(bad).cast<int64_t>();
    const py::object value = own.attr("reshape")(-1)[py::int_(flat)];
    ThrowOutOfRange(k, py::str(py::int_(value)).cast<std::string>(), first_seq + flat / row_len,
                    flat % row_len);
  }
  const py::array as32 = np.attr("ascontiguousarray")(own, np.attr("int32"));
  std::memcpy(to, as32.data(), static_cast<size_t>(n) * sizeof(int32_t));
}

// A non-empty list or tuple: maybe sequences of different lengths, which
// NumPy cannot read as one array.
bool IsSequenceList(py::handle ids) {
  return (py::isinstance<py::list>(ids) || py::isinstance<py::tuple>(ids)) && py::len(ids) > 0;
}

// What ToIds checks ids against.
struct IdLimits {
  int64_t vocab_size, d_model, max_tokens, max_values;
  bool pooled;
};

// Whether every item of a list of ids is itself a sequence (a list, a tuple or
// a 1-D array): a list of sequences, maybe of different lengths.
bool HoldsSequences(const py::sequence& items) {
  for (const py::handle item : items) {
    const bool sequence =
        py::isinstance<py::list>(item) || py::isinstance<py::tuple>(item) ||
        (py::isinstance<py::array>(item) && py::reinterpret_borrow<py::array>(item).ndim() == 1);
    if (!sequence) return false;
  }
  return true;
}

// Item b of a list of sequences: a 1-D integer array.
py::array SequenceItem(const py::sequence& items, int64_t b) {
  const py::array row = AsArray(items[static_cast<size_t>(b)], "ids[" + std::to_string(b) + "]");
  if (row.ndim() != 1) {
    throw Error("ids[" + std::to_string(b) + "] must be a 1-D sequence of token ids, got shape " +
                ShapeText(row));
  }
  const char kind = Kind(row);
  if (kind != 'i' && kind != 'u' && kind != 'O' && row.size() > 0) {
    throw Error("ids[" + std::to_string(b) + "] must hold integers, got dtype " +
                py::str(row.dtype()).cast<std::string>());
  }
  return row;
}

// A list of sequences, each read on its own.
Ids ListIds(const py::sequence& items, const IdLimits& lim) {
  Ids out;
  const auto batch = static_cast<int64_t>(py::len(items));
  std::vector<py::array> rows;
  std::vector<int64_t> offsets = {0};
  for (int64_t b = 0; b < batch; ++b) {
    const py::array row = SequenceItem(items, b);
    const int64_t n = row.size();
    if (n > lim.max_tokens - offsets.back()) {
      throw Error(TooLargeForOneCall("a list of " + std::to_string(batch) + " sequences"));
    }
    rows.push_back(row);
    offsets.push_back(offsets.back() + n);
  }
  bool equal = true;
  for (const py::array& row : rows) equal = equal && row.size() == rows[0].size();
  out.form = equal ? Ids::Form::kBatch : Ids::Form::kList;
  out.batch = batch;
  for (const py::array& row : rows) out.seq = std::max<int64_t>(out.seq, row.size());
  if (!lim.pooled && offsets.back() > lim.max_values / lim.d_model) {
    throw Error(TooLargeForOneCall("a list of " + std::to_string(batch) + " sequences"));
  }
  out.ids.resize(static_cast<size_t>(offsets.back()));
  for (int64_t b = 0; b < batch; ++b) {
    CopyIds(rows[b], std::max<int64_t>(rows[b].size(), 1), b, IdsOf(lim.vocab_size),
            out.ids.data() + offsets[b]);
  }
  out.offsets = std::move(offsets);
  return out;
}

// A 1-D or 2-D integer array-like.
Ids ArrayIds(py::handle ids_in, const IdLimits& lim) {
  Ids out;
  if (ids_in.is_none() || py::isinstance<py::str>(ids_in) || py::isinstance<py::bytes>(ids_in) ||
      py::isinstance<py::dict>(ids_in)) {
    throw Error("ids must be token ids: a 1-D or 2-D integer array, or a list of sequences, got " +
                TypeName(ids_in));
  }
  const py::array a = AsArray(ids_in, "ids");
  if (a.ndim() != 1 && a.ndim() != 2) {
    if (a.ndim() == 0) {
      throw Error(
          "ids must be token ids: a 1-D or 2-D integer array, or a list of sequences, got " +
          TypeName(ids_in) + (py::isinstance<py::array>(ids_in) ? " of shape ()" : ""));
    }
    throw Error("ids must be 1-D [seq] or 2-D [batch, seq], got shape " + ShapeText(a));
  }
  out.form = a.ndim() == 1 ? Ids::Form::kOne : Ids::Form::kBatch;
  out.batch = a.ndim() == 1 ? 1 : a.shape(0);
  out.seq = a.ndim() == 1 ? a.shape(0) : a.shape(1);
  // The shape against the limits before anything its size is made.
  if (out.batch > 0 && (out.seq > lim.max_tokens / out.batch ||
                        (!lim.pooled && out.batch * out.seq > lim.max_values / lim.d_model))) {
    throw Error(TooLargeForOneCall("ids of shape " + ShapeText(a)));
  }
  const char kind = Kind(a);
  const bool integer = kind == 'i' || kind == 'u' || kind == 'O';
  const bool empty = a.size() == 0;
  if (!integer && !(empty && (kind == 'f' || kind == 'b'))) {
    throw Error("ids must be integers, got dtype " + py::str(a.dtype()).cast<std::string>());
  }
  out.ids.resize(static_cast<size_t>(out.batch * out.seq));
  CopyIds(a, std::max<int64_t>(out.seq, 1), 0, IdsOf(lim.vocab_size), out.ids.data());
  out.offsets.resize(static_cast<size_t>(out.batch) + 1);
  for (int64_t b = 0; b <= out.batch; ++b) out.offsets[b] = b * out.seq;
  return out;
}

}  // namespace

Ids ToIds(py::handle ids_in, int64_t vocab_size, int64_t d_model, int64_t max_tokens,
          int64_t max_values, bool pooled) {
  const IdLimits lim{vocab_size, d_model, max_tokens, max_values, pooled};
  if ((py::isinstance<py::list>(ids_in) || py::isinstance<py::tuple>(ids_in)) &&
      py::len(ids_in) == 0) {
    throw Error("ids is an empty " + TypeName(ids_in) +
                ": nothing to encode (give at least one sequence of token ids)");
  }
  if (IsSequenceList(ids_in)) {
    const py::sequence items = py::reinterpret_borrow<py::sequence>(ids_in);
    if (HoldsSequences(items)) return ListIds(items, lim);
  }
  return ArrayIds(ids_in, lim);
}

namespace {

// a: n token types laid out as their ids; Error naming the dtype or the
// first type outside [0, n_types).
void CopyTokenTypes(const py::array& a, int64_t row_len, int64_t first_seq, int64_t n_types,
                    int32_t* to) {
  const char kind = Kind(a);
  if (kind != 'i' && kind != 'u' && kind != 'O' && a.size() > 0) {
    throw Error("token_type_ids must be integers, got dtype " +
                py::str(a.dtype()).cast<std::string>());
  }
  CopyIds(a, row_len, first_seq,
          {"token_type_ids", "token type", "the model's token types", n_types}, to);
}

}  // namespace

std::vector<int32_t> ToTokenTypes(py::handle types, const Ids& ids, int64_t n_types) {
  std::vector<int32_t> out(ids.ids.size());
  if (ids.form == Ids::Form::kList) {
    const bool list = py::isinstance<py::list>(types) || py::isinstance<py::tuple>(types);
    if (!list || static_cast<int64_t>(py::len(types)) != ids.batch) {
      throw Error("token_type_ids must be a list of " + std::to_string(ids.batch) +
                  " sequences, one for each sequence of ids");
    }
    const py::sequence items = py::reinterpret_borrow<py::sequence>(types);
    for (int64_t b = 0; b < ids.batch; ++b) {
      const py::array row =
          AsArray(items[static_cast<size_t>(b)], "token_type_ids[" + std::to_string(b) + "]");
      const int64_t n = ids.offsets[b + 1] - ids.offsets[b];
      if (row.ndim() != 1 || row.shape(0) != n) {
        throw Error("token_type_ids[" + std::to_string(b) + "] must have shape (" +
                    std::to_string(n) + ",), as ids[" + std::to_string(b) + "], got shape " +
                    ShapeText(row));
      }
      CopyTokenTypes(row, std::max<int64_t>(n, 1), b, n_types, out.data() + ids.offsets[b]);
    }
    return out;
  }
  const py::array a = AsArray(types, "token_type_ids");
  const bool one = ids.form == Ids::Form::kOne;
  const bool same = one ? a.ndim() == 1 && a.shape(0) == ids.seq
                        : a.ndim() == 2 && a.shape(0) == ids.batch && a.shape(1) == ids.seq;
  if (!same) {
    throw Error("token_type_ids must have the shape of ids, (" +
                (one ? std::to_string(ids.seq) + ","
                     : std::to_string(ids.batch) + ", " + std::to_string(ids.seq)) +
                "), got shape " + ShapeText(a));
  }
  CopyTokenTypes(a, std::max<int64_t>(ids.seq, 1), 0, n_types, out.data());
  return out;
}

std::vector<int64_t> ToLengths(py::handle lengths, const Ids& ids) {
  if (ids.form == Ids::Form::kList) {
    throw Error("lengths goes with array ids; a list of sequences gives each its own length");
  }
  const py::array a = AsArray(lengths, "lengths");
  const bool one = ids.form == Ids::Form::kOne;
  const bool shape_ok = (a.ndim() == 1 && a.shape(0) == ids.batch) || (a.ndim() == 0 && one);
  if (!shape_ok) {
    throw Error("lengths must have shape (" + std::to_string(ids.batch) + ",), one per sequence, " +
                "got shape " + ShapeText(a));
  }
  const char kind = Kind(a);
  if (kind != 'i' && kind != 'u' && a.size() > 0) {
    throw Error("lengths must be integers, got dtype " + py::str(a.dtype()).cast<std::string>());
  }
  std::vector<int64_t> out;
  const py::list values = a.attr("reshape")(-1).attr("tolist")();
  for (size_t b = 0; b < values.size(); ++b) {
    const py::int_ v = values[b].cast<py::int_>();
    if (Less(v, py::int_(1)) || Less(py::int_(ids.seq), v)) {
      throw Error("lengths[" + std::to_string(b) + "] must be in [1, " + std::to_string(ids.seq) +
                  "], got " + py::repr(v).cast<std::string>());
    }
    out.push_back(v.cast<int64_t>());
  }
  return out;
}

}  // namespace phasor::python

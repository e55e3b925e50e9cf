#include "engine/safetensors.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>
#include <vector>

#include "engine/error.h"
#include "engine/json_text.h"
#include "engine/kernels/half.h"
#include "engine/memory_limit.h"
#include "engine/output_file.h"

namespace phasor {
namespace {

using Json = nlohmann::json;

// kI64: only Hugging Face's index buffers (IsIndexBuffer), checked but not read.
enum class Dtype { kF32, kF16, kBF16, kI64 };

int DtypeBytes(Dtype dtype) { return dtype == Dtype::kI64 ? 8 : dtype == Dtype::kF32 ? 4 : 2; }

const char* DtypeName(Dtype dtype) {
  switch (dtype) {
    case Dtype::kF32:
      return "F32";
    case Dtype::kF16:
      return "F16";
    case Dtype::kBF16:
      return "BF16";
    case Dtype::kI64:
      return "I64";
  }
  return "?";
}

// A name or value from the file, quoted for a message.
std::string Quote(const std::string& text) { return json_text::Quote(text, 120); }
using json_text::Found;
using json_text::Printable;

std::string ErrnoText() {
  return errno != 0 ? std::string(" (") + std::strerror(errno) + ")" : std::string();
}

using json_text::ParseStrictJson;
using json_text::StructureError;

// One tensor's header entry, validated.
struct Entry {
  std::string name;
  Dtype dtype;
  Shape shape;
  int64_t elements;
  uint64_t begin;  // byte offsets in the data section
  uint64_t end;
};

// Stores a JSON integer >= 0 in *out; false for anything else.
bool NonNegativeInteger(const Json& value, uint64_t* out) {
  if (value.is_number_unsigned()) {
    *out = value.get<uint64_t>();
    return true;
  }
  if (value.is_number_integer() && value.get<int64_t>() >= 0) {
    *out = static_cast<uint64_t>(value.get<int64_t>());
    return true;
  }
  return false;
}

// The entry's JSON has exactly the three fields.
void CheckEntryFields(const std::string& where, const Json& value) {
  if (!value.is_object()) {
    throw Error(where + "expected an object with dtype, shape and data_offsets, found " +
                Found(value));
  }
  for (const auto& item : value.items()) {
    if (item.key() != "dtype" && item.key() != "shape" && item.key() != "data_offsets") {
      throw Error(where + "unknown field " + Quote(item.key()) +
                  ", expected only dtype, shape and data_offsets");
    }
  }
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    if (!value.contains(field)) throw Error(where + "missing field '" + field + "'");
  }
}

Dtype ParseDtype(const std::string& where, const std::string& name, const Json& dtype) {
  if (!dtype.is_string()) throw Error(where + "dtype: expected a string, found " + Found(dtype));
  const std::string& dtype_name = dtype.get_ref<const std::string&>();
  if (dtype_name == "F32") return Dtype::kF32;
  if (dtype_name == "F16") return Dtype::kF16;
  if (dtype_name == "BF16") return Dtype::kBF16;
  if (dtype_name == "I64" && IsIndexBuffer(name)) return Dtype::kI64;
  throw Error(where + "unsupported dtype " + Quote(dtype_name) + ", expected F32, F16 or BF16");
}

// entry's shape and element count from the JSON shape.
void ParseShape(const std::string& where, const Json& shape, Entry* entry) {
  if (!shape.is_array()) {
    throw Error(where + "shape: expected an array of integers, found " + Found(shape));
  }
  entry->elements = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const Json& dim = shape[i];
    const std::string at = where + "shape[" + std::to_string(i) + "]: ";
    if (!dim.is_number_integer()) {
      throw Error(at + "expected a non-negative integer, found " + Found(dim));
    }
    uint64_t d = 0;
    if (!NonNegativeInteger(dim, &d)) {
      throw Error(at + "negative dimension " + Found(dim) + ", expected >= 0");
    }
    // Checked before multiplying, so the product never overflows.
    const uint64_t limit = static_cast<uint64_t>(kSafetensorsMaxElements);
    if (d > limit || (d != 0 && static_cast<uint64_t>(entry->elements) > limit / d)) {
      throw Error(where + "shape " + Found(shape) +
                  " has more than 2^40 elements, expected at most 2^40");
    }
    entry->elements *= static_cast<int64_t>(d);
    entry->shape.push_back(static_cast<int64_t>(d));
  }
}

// entry's byte range from the JSON data_offsets: inside the data section and
// as long as its shape and dtype say.
void ParseOffsets(const std::string& where, const Json& offsets, uint64_t data_size, Entry* entry) {
  uint64_t begin = 0, end = 0;
  if (!offsets.is_array() || offsets.size() != 2 || !NonNegativeInteger(offsets[0], &begin) ||
      !NonNegativeInteger(offsets[1], &end)) {
    throw Error(where + "data_offsets: expected two non-negative integers [begin, end], found " +
                Found(offsets));
  }
  if (begin > end) {
    throw Error(where + "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                "]: expected begin <= end");
  }
  if (end > data_size) {
    throw Error(where + "data_offsets end " + std::to_string(end) +
                " is past the end of the data section, expected <= " + std::to_string(data_size));
  }
  // elements <= 2^40 and at most 8 bytes each: no overflow.
  const uint64_t expected_bytes =
      static_cast<uint64_t>(entry->elements) * static_cast<uint64_t>(DtypeBytes(entry->dtype));
  if (end - begin != expected_bytes) {
    throw Error(where + "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                "] span " + std::to_string(end - begin) + " bytes, expected " +
                std::to_string(expected_bytes) + " (shape " + ShapeToString(entry->shape) + " of " +
                DtypeName(entry->dtype) + ")");
  }
  entry->begin = begin;
  entry->end = end;
}

Entry ParseEntry(const std::string& path, const std::string& name, const Json& value,
                 uint64_t data_size) {
  const std::string where = path + ": tensor " + Quote(name) + ": ";
  CheckEntryFields(where, value);
  Entry entry;
  entry.name = name;
  entry.dtype = ParseDtype(where, name, value["dtype"]);
  ParseShape(where, value["shape"], &entry);
  ParseOffsets(where, value["data_offsets"], data_size, &entry);
  return entry;
}

void CheckMetadata(const std::string& path, const Json& metadata) {
  if (!metadata.is_object()) {
    throw Error(path + ": '__metadata__': expected an object of strings, found " + Found(metadata));
  }
  for (const auto& item : metadata.items()) {
    if (!item.value().is_string()) {
      throw Error(path + ": '__metadata__' key " + Quote(item.key()) +
                  ": expected a string, found " + Found(item.value()));
    }
  }
}

bool HostIsLittleEndian() {
  const uint32_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

uint16_t LittleU16(const unsigned char* b) { return static_cast<uint16_t>(b[0] | (b[1] << 8)); }

// Little-endian F32 bytes to floats, on a host of either byte order: n
// values from bytes into out.
void Convert(Dtype dtype, const unsigned char* bytes, int64_t n, float* out) {
  assert(dtype == Dtype::kF32);
  (void)dtype;
  for (int64_t i = 0; i < n; ++i) {
    const unsigned char* b = bytes + 4 * i;
    const uint32_t bits =
        uint32_t{b[0]} | (uint32_t{b[1]} << 8) | (uint32_t{b[2]} << 16) | (uint32_t{b[3]} << 24);
    std::memcpy(&out[i], &bits, 4);
  }
}

}  // namespace

bool IsIndexBuffer(const std::string& name) {
  for (const std::string tail : {"position_ids", "token_type_ids"}) {
    if (name.size() >= tail.size() &&
        name.compare(name.size() - tail.size(), tail.size(), tail) == 0) {
      return true;
    }
  }
  return false;
}

namespace {

// The file opened for reading, a regular file of at least 8 bytes; its size.
std::ifstream OpenRegular(const std::string& path, uint64_t* file_size) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(path + ": is a directory, expected a safetensors file");
  }
  // A FIFO or device would block or never end: only regular files are read.
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    throw Error(path + ": is not a regular file, expected a safetensors file");
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open for reading" + ErrnoText());
  in.seekg(0, std::ios::end);
  const std::streamoff size_or_error = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size_or_error < 0 || !in) throw Error(path + ": cannot read the file's size");
  *file_size = static_cast<uint64_t>(size_or_error);
  if (*file_size < 8) {
    throw Error(path + ": file is " + std::to_string(*file_size) +
                " bytes, expected at least 8 (the header length)");
  }
  return in;
}

// The JSON header after the length, every check on the length before
// anything is allocated for it; *data_start: where the data section begins.
Json ReadHeader(const std::string& path, std::ifstream& in, uint64_t file_size,
                uint64_t* data_start) {
  unsigned char length_bytes[8];
  if (!in.read(reinterpret_cast<char*>(length_bytes), 8)) {
    throw Error(path + ": cannot read the header length");
  }
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | length_bytes[i];
  if (header_len == 0) {
    throw Error(path + ": header length is 0, expected a JSON object of at least 2 bytes");
  }
  if (header_len > file_size - 8) {
    throw Error(path + ": header length " + std::to_string(header_len) +
                " is past the end of the file, expected <= " + std::to_string(file_size - 8) +
                " (file of " + std::to_string(file_size) + " bytes)");
  }
  if (header_len > kSafetensorsMaxHeaderBytes) {
    throw Error(path + ": header length " + std::to_string(header_len) + " exceeds the limit of " +
                std::to_string(kSafetensorsMaxHeaderBytes) + " bytes");
  }
  std::string header_text(header_len, '\0');
  if (!in.read(header_text.data(), static_cast<std::streamsize>(header_len))) {
    throw Error(path + ": file ended inside the header (changed while being read?)");
  }
  *data_start = 8 + header_len;
  Json header;
  try {
    header = ParseStrictJson(header_text);
  } catch (const StructureError& e) {
    throw Error(path + ": header: " + e.message);
  } catch (const Json::exception& e) {
    throw Error(path + ": header is not valid JSON: " + Printable(e.what(), 300));
  }
  if (!header.is_object()) {
    throw Error(path + ": header: expected a JSON object, found " +
                std::string(header.type_name()));
  }
  return header;
}

// Non-empty byte ranges must be disjoint; this also bounds the memory
// allocated for the tensors by (data section size) * 2.
void CheckDisjoint(const std::string& path, const std::vector<Entry>& entries) {
  std::vector<const Entry*> by_begin;
  for (const Entry& e : entries) {
    if (e.end > e.begin) by_begin.push_back(&e);
  }
  std::sort(by_begin.begin(), by_begin.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  for (size_t i = 1; i < by_begin.size(); ++i) {
    const Entry& a = *by_begin[i - 1];
    const Entry& b = *by_begin[i];
    if (b.begin < a.end) {
      throw Error(path + ": tensors " + Quote(a.name) + " [" + std::to_string(a.begin) + ", " +
                  std::to_string(a.end) + ") and " + Quote(b.name) + " [" +
                  std::to_string(b.begin) + ", " + std::to_string(b.end) +
                  ") overlap, expected disjoint byte ranges");
    }
  }
}

// n_bytes of e's data from the current position into target, or the error
// of a file that ended early.
void ReadBytes(const std::string& path, std::ifstream& in, const Entry& e, void* target,
               uint64_t n_bytes) {
  if (n_bytes > 0 && !in.read(static_cast<char*>(target), static_cast<std::streamsize>(n_bytes))) {
    throw Error(path + ": tensor " + Quote(e.name) +
                ": file ended inside its data (changed while being read?)");
  }
}

// Values of a 16-bit dtype converted a chunk at a time: the file's bytes
// never held whole beside the floats.
constexpr int64_t kChunkValues = int64_t{1} << 16;

// e's F16 data as floats: read a chunk (little-endian u16s, swapped on a
// big-endian host), converted by the target's kernel into its place in out.
void ReadHalf(const std::string& path, std::ifstream& in, const Entry& e, bool little,
              std::vector<uint16_t>& chunk, float* out) {
  chunk.resize(static_cast<size_t>(std::min(kChunkValues, e.elements)));
  for (int64_t at = 0; at < e.elements; at += kChunkValues) {
    const int64_t n = std::min(kChunkValues, e.elements - at);
    ReadBytes(path, in, e, chunk.data(), static_cast<uint64_t>(n) * 2);
    if (!little) {
      for (int64_t i = 0; i < n; ++i) {
        chunk[i] = LittleU16(reinterpret_cast<const unsigned char*>(&chunk[i]));
      }
    }
    kernels::HalfToFloatRow(chunk.data(), n, out + at);
  }
}

// Each entry's data read into weights: F32 on a little-endian host and BF16
// straight into their tensors (bfloat16 bits are kept as stored: a bf16
// model's products take them without a float32 copy); F16 converted as it is
// read; F32 on a big-endian host as bytes, then swapped.
void ReadTensors(const std::string& path, std::ifstream& in, uint64_t data_start,
                 const std::vector<Entry>& entries, Weights* weights) {
  std::vector<unsigned char> bytes;
  std::vector<uint16_t> chunk;
  const bool little = HostIsLittleEndian();
  for (const Entry& e : entries) {
    const uint64_t n_bytes = e.end - e.begin;
    in.seekg(static_cast<std::streamoff>(data_start + e.begin), std::ios::beg);
    if (e.dtype == Dtype::kBF16) {
      std::vector<uint16_t> bits(static_cast<size_t>(e.elements));
      ReadBytes(path, in, e, bits.data(), n_bytes);
      if (!little) {
        for (uint16_t& b : bits) b = LittleU16(reinterpret_cast<const unsigned char*>(&b));
      }
      weights->AddBf16(e.name, e.shape, std::move(bits));
      continue;
    }
    AlignedFloats data(static_cast<size_t>(e.elements));
    if (e.dtype == Dtype::kF16) {
      ReadHalf(path, in, e, little, chunk, data.data());
    } else if (little) {
      ReadBytes(path, in, e, data.data(), n_bytes);
    } else {
      bytes.resize(n_bytes);
      ReadBytes(path, in, e, bytes.data(), n_bytes);
      Convert(e.dtype, bytes.data(), e.elements, data.data());
    }
    weights->AddAligned(e.name, e.shape, std::move(data));
  }
}

}  // namespace

Weights LoadSafetensors(const std::string& path, std::vector<std::string>* left_out) {
  uint64_t file_size = 0, data_start = 0;
  std::ifstream in = OpenRegular(path, &file_size);
  const Json header = ReadHeader(path, in, file_size, &data_start);
  const uint64_t data_size = file_size - data_start;

  std::vector<Entry> entries;
  entries.reserve(header.size());
  for (const auto& item : header.items()) {
    if (item.key() == "__metadata__") {
      CheckMetadata(path, item.value());
      continue;
    }
    entries.push_back(ParseEntry(path, item.key(), item.value(), data_size));
  }
  CheckDisjoint(path, entries);
  for (const Entry& e : entries) {
    if (e.dtype == Dtype::kI64 && left_out != nullptr) left_out->push_back(e.name);
  }
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [](const Entry& e) { return e.dtype == Dtype::kI64; }),
                entries.end());

  // Disjoint spans of elements * (2 or 4) bytes: the float32 total is at most
  // twice the data section, so this sum cannot overflow.
  uint64_t total_bytes = 0;
  for (const Entry& e : entries) total_bytes += static_cast<uint64_t>(e.elements) * 4;
  CheckAllocation(total_bytes, path + ": the tensors");

  Weights weights(path);
  ReadTensors(path, in, data_start, entries, &weights);
  return weights;
}

void SaveSafetensors(const std::string& path, const Weights& weights) {
  OutputFile out(path);
  WriteSafetensors(out, weights);
  out.Commit();
}

void WriteSafetensors(OutputFile& out, const Weights& weights) {
  const std::string& path = out.path();
  // Names() is sorted; data is packed in the same order.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  uint64_t offset = 0;
  for (const std::string& name : weights.Names()) {
    const Tensor& t = weights.Get(name);
    const uint64_t n_bytes = static_cast<uint64_t>(NumElements(t.shape)) * 4;
    header[name] = {
        {"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + n_bytes}}};
    offset += n_bytes;
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::ordered_json::exception& e) {
    throw Error(path + ": cannot write the header, a tensor name is not valid UTF-8: " +
                Printable(e.what(), 300));
  }
  text.append((8 - text.size() % 8) % 8, ' ');

  unsigned char length_bytes[8];
  uint64_t len = text.size();
  for (unsigned char& b : length_bytes) {
    b = static_cast<unsigned char>(len & 0xff);
    len >>= 8;
  }
  out.Write(length_bytes, 8);
  out.Write(text);
  const bool little = HostIsLittleEndian();
  std::vector<unsigned char> swapped;
  for (const std::string& name : weights.Names()) {
    const float* data = weights.Floats(name);  // [NumElements(shape)]
    const size_t n = static_cast<size_t>(NumElements(weights.Get(name).shape));
    if (little) {
      out.Write(data, n * 4);
    } else {
      swapped.resize(n * 4);
      for (size_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &data[i], 4);
        for (int k = 0; k < 4; ++k) {
          swapped[4 * i + k] = static_cast<unsigned char>(bits >> (8 * k));
        }
      }
      out.Write(swapped.data(), swapped.size());
    }
  }
}

}  // namespace phasor

#include "engine/npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/error.h"
#include "engine/output_file.h"

namespace phasor {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::ostringstream s;
  s << "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    s << shape[i];
    if (shape.size() == 1 || i + 1 < shape.size()) s << ",";
    if (i + 1 < shape.size()) s << " ";
  }
  s << ")";
  return s.str();
}

// The value of key in a Python dict literal header, e.g. 'descr': '<f4'.
std::string HeaderValue(const std::string& header, const std::string& key,
                        const std::string& path) {
  const size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) throw Error(path + ": npy header has no '" + key + "'");
  size_t v = header.find(':', k);
  if (v == std::string::npos) throw Error(path + ": npy header is malformed");
  ++v;
  while (v < header.size() && header[v] == ' ') ++v;
  size_t end = v;
  if (end < header.size() && header[end] == '(') {
    end = header.find(')', end);
    if (end == std::string::npos) throw Error(path + ": npy header is malformed");
    return header.substr(v, end - v + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return header.substr(v, end - v);
}

// The bytes before the data: magic, version, header length and the header
// itself, padded with spaces to a multiple of 64 bytes.
std::string NpyPreamble(const std::vector<int64_t>& shape, const char* descr) {
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + ShapeString(shape) + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to 64 bytes.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  const auto len = static_cast<uint16_t>(header.size());
  std::string out(kMagic, 6);
  out += std::string{1, 0};
  out += std::string{static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  return out + header;
}

void WriteNpyBytes(OutputFile& out, const std::vector<int64_t>& shape, const char* descr,
                   const void* data, size_t width) {
  out.Write(NpyPreamble(shape, descr));
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  out.Write(data, static_cast<size_t>(count) * width);
}

}  // namespace

void WriteNpy(const std::string& path, const std::vector<int64_t>& shape, const float* data) {
  OutputFile out(path);
  WriteNpyBytes(out, shape, "<f4", data, 4);
  out.Commit();
}

void WriteNpyInt64(const std::string& path, const std::vector<int64_t>& shape,
                   const int64_t* data) {
  OutputFile out(path);
  WriteNpyInt64(out, shape, data);
  out.Commit();
}

void WriteNpyInt64(OutputFile& out, const std::vector<int64_t>& shape, const int64_t* data) {
  WriteNpyBytes(out, shape, "<i8", data, 8);
}

NpyWriter::NpyWriter(const std::string& path, const std::vector<int64_t>& shape) : path_(path) {
  uint64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && count > (uint64_t{1} << 50) / static_cast<uint64_t>(d))) {
      throw Error("cannot write " + path + ": shape too large");
    }
    count *= static_cast<uint64_t>(d);
  }
  count_ = static_cast<int64_t>(count);
  file_ = std::make_unique<OutputFile>(path);
  const std::string preamble = NpyPreamble(shape, "<f4");
  data_start_ = static_cast<int64_t>(preamble.size());
  file_->WriteAt(0, preamble.data(), preamble.size());
  // The whole size at once: values never written read as 0 (a sparse file).
  file_->Resize(data_start_ + count_ * 4);
}

NpyWriter::~NpyWriter() = default;

void NpyWriter::WriteValues(int64_t first, const float* values, int64_t n) {
  if (first < 0 || n < 0 || first > count_ - n) {
    throw Error("cannot write " + path_ + ": values " + std::to_string(first) + " .. " +
                std::to_string(first + n) + " are outside its " + std::to_string(count_));
  }
  file_->WriteAt(data_start_ + first * 4, values, static_cast<size_t>(n) * 4);
}

void NpyWriter::Commit() { file_->Commit(); }

NpyArray ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path + ": " + std::strerror(errno));
  char prefix[10];
  if (!in.read(prefix, 10) || std::memcmp(prefix, kMagic, 6) != 0) {
    throw Error(path + ": not an npy file");
  }
  if (prefix[6] != 1) throw Error(path + ": unsupported npy version");
  const size_t header_len =
      static_cast<uint8_t>(prefix[8]) | (static_cast<size_t>(static_cast<uint8_t>(prefix[9])) << 8);
  std::string header(header_len, '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(header_len))) {
    throw Error(path + ": truncated npy header");
  }
  const std::string descr = HeaderValue(header, "descr", path);
  const bool f4 = descr.find("<f4") != std::string::npos;
  const bool f8 = descr.find("<f8") != std::string::npos;
  if (!f4 && !f8) throw Error(path + ": npy dtype " + descr + ", expected '<f4' or '<f8'");
  if (HeaderValue(header, "fortran_order", path).find("False") == std::string::npos) {
    throw Error(path + ": npy array is in Fortran order, expected C order");
  }
  NpyArray arr;
  std::string shape = HeaderValue(header, "shape", path);
  int64_t count = 1;
  for (size_t i = 0; i < shape.size();) {
    if (std::isdigit(static_cast<unsigned char>(shape[i]))) {
      size_t used = 0;
      const int64_t d = std::stoll(shape.substr(i), &used);
      if (d < 0 || d > (int64_t{1} << 40) || (d > 0 && count > (int64_t{1} << 40) / d)) {
        throw Error(path + ": npy shape " + shape + " is too large");
      }
      arr.shape.push_back(d);
      count *= d;
      i += used;
    } else {
      ++i;
    }
  }
  const size_t width = f4 ? 4 : 8;
  std::vector<char> raw(static_cast<size_t>(count) * width);
  if (!in.read(raw.data(), static_cast<std::streamsize>(raw.size()))) {
    throw Error(path + ": npy data is shorter than its shape " + shape);
  }
  arr.data.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    if (f4) {
      std::memcpy(&arr.data[i], raw.data() + i * 4, 4);
    } else {
      double v;
      std::memcpy(&v, raw.data() + i * 8, 8);
      arr.data[i] = static_cast<float>(v);
    }
  }
  return arr;
}

}  // namespace phasor

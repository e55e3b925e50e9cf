#include "engine/npy.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/error.h"

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

}  // namespace

void WriteNpy(const std::string& path, const std::vector<int64_t>& shape, const float* data) {
  std::string header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': " + ShapeString(shape) + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to 64 bytes.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error("cannot write " + path + ": " + std::strerror(errno));
  out.write(kMagic, 6);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const uint16_t len = static_cast<uint16_t>(header.size());
  const char len_bytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(len_bytes, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(count * 4));
  out.flush();
  if (!out) throw Error("cannot write " + path + ": " + std::strerror(errno));
}

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

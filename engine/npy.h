// NPY files (NumPy's format, version 1.0): float32, little-endian, C order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace phasor {

class OutputFile;  // engine/output_file.h

struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<float> data;  // C order, product(shape) values
};

// Writes data (C order, product(shape) floats) as a float32 .npy file.
// Throws Error naming the path if it cannot be written.
void WriteNpy(const std::string& path, const std::vector<int64_t>& shape, const float* data);

// Writes data (C order, product(shape) int64 values) as an int64 (<i8) .npy file.
void WriteNpyInt64(const std::string& path, const std::vector<int64_t>& shape, const int64_t* data);
// The same into out, not yet committed.
void WriteNpyInt64(OutputFile& out, const std::vector<int64_t>& shape, const int64_t* data);

// Every writer here goes through engine/output_file.h: the file appears
// complete under its name or not at all.

// A float32 .npy file written piece by piece, in any order: for outputs larger
// than memory. The file is made (at its full size, zeros where nothing is
// written) as a temporary file beside path when constructed, so that a path
// that cannot be written fails before any work; Commit puts it in place. A
// writer destroyed without Commit removes it. Throws Error naming path.
class NpyWriter {
 public:
  NpyWriter(const std::string& path, const std::vector<int64_t>& shape);
  ~NpyWriter();
  NpyWriter(const NpyWriter&) = delete;
  NpyWriter& operator=(const NpyWriter&) = delete;

  // Values first .. first + n - 1 of the array (C order) from values[0 .. n).
  void WriteValues(int64_t first, const float* values, int64_t n);
  void Commit();
  // The file, to commit it together with others (engine/output_file.h).
  OutputFile& file() { return *file_; }

 private:
  std::string path_;
  std::unique_ptr<OutputFile> file_;
  int64_t count_ = 0;
  int64_t data_start_ = 0;
};

// Reads a float32 (<f4) or float64 (<f8, converted) C-order .npy file.
// Throws Error naming the path and the problem for anything else.
NpyArray ReadNpy(const std::string& path);

}  // namespace phasor

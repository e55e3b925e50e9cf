// NPY files (NumPy's format, version 1.0): float32, little-endian, C order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace phasor {

struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<float> data;  // C order, product(shape) values
};

// Writes data (C order, product(shape) floats) as a float32 .npy file.
// Throws Error naming the path if it cannot be written.
void WriteNpy(const std::string& path, const std::vector<int64_t>& shape, const float* data);

// Reads a float32 (<f4) or float64 (<f8, converted) C-order .npy file.
// Throws Error naming the path and the problem for anything else.
NpyArray ReadNpy(const std::string& path);

}  // namespace phasor

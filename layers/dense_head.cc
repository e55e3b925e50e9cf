#include "layers/dense_head.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "engine/error.h"

namespace phasor {

HeadActivation ParseHeadActivation(const std::string& name) {
  if (name == "identity") return HeadActivation::kIdentity;
  if (name == "tanh") return HeadActivation::kTanh;
  if (name == "relu") return HeadActivation::kRelu;
  throw Error("unknown head activation '" + name + "', expected identity, tanh or relu");
}

const char* ToString(HeadActivation activation) {
  switch (activation) {
    case HeadActivation::kIdentity:
      return "identity";
    case HeadActivation::kTanh:
      return "tanh";
    case HeadActivation::kRelu:
      return "relu";
  }
  return "?";
}

DenseHead::DenseHead(const Weights& weights, const std::string& prefix, int64_t in,
                     const std::vector<DenseProduct>& products)
    : prefix_(prefix), in_(in), max_width_(in), products_(products) {
  int64_t width = in;
  for (size_t i = 0; i < products.size(); ++i) {
    const std::string p = prefix + std::to_string(i) + ".";
    linears_.emplace_back(weights, p + "weight", p + "bias", products[i].out, width,
                          Precision::kFp32);
    width = products[i].out;
    max_width_ = std::max(max_width_, width);
  }
}

int64_t DenseHead::out(int64_t n) const {
  assert(n >= 0 && n <= size());
  return n == 0 ? in_ : products_[static_cast<size_t>(n - 1)].out;
}

std::vector<std::string> DenseHead::TensorNames() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < products_.size(); ++i) {
    names.push_back(prefix_ + std::to_string(i) + ".weight");
    names.push_back(prefix_ + std::to_string(i) + ".bias");
  }
  return names;
}

void DenseHead::Forward(const float* x, int64_t rows, int64_t n, float* out, float* scratch) const {
  assert(n >= 1 && n <= size());
  const float* from = x;  // [rows, in_i]
  for (int64_t i = 0; i < n; ++i) {
    // The last product lands in out; the ones before alternate so that each
    // reads the other buffer.
    float* to = (n - 1 - i) % 2 == 0 ? out : scratch;  // [rows, out_i]
    const DenseProduct& p = products_[static_cast<size_t>(i)];
    const bool relu = p.activation == HeadActivation::kRelu;
    linears_[static_cast<size_t>(i)].Forward(
        from, rows, to, relu ? kernels::Activation::kRelu : kernels::Activation::kIdentity,
        nullptr);
    if (p.activation == HeadActivation::kTanh) {
      for (int64_t k = 0; k < rows * p.out; ++k) to[k] = std::tanh(to[k]);
    }
    from = to;
  }
}

}  // namespace phasor

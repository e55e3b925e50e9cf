#include "layers/dense_head.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "engine/error.h"

namespace phasor {
namespace {

// The product's own epilogue for every activation but tanh (applied after).
kernels::Activation KernelActivation(HeadActivation a) {
  switch (a) {
    case HeadActivation::kRelu:
      return kernels::Activation::kRelu;
    case HeadActivation::kGelu:
      return kernels::Activation::kGelu;
    case HeadActivation::kGeluTanh:
      return kernels::Activation::kGeluTanh;
    case HeadActivation::kSilu:
      return kernels::Activation::kSilu;
    case HeadActivation::kIdentity:
    case HeadActivation::kTanh:
      break;
  }
  return kernels::Activation::kIdentity;
}

}  // namespace

HeadActivation ParseHeadActivation(const std::string& name) {
  for (HeadActivation a :
       {HeadActivation::kIdentity, HeadActivation::kTanh, HeadActivation::kRelu,
        HeadActivation::kGelu, HeadActivation::kGeluTanh, HeadActivation::kSilu}) {
    if (name == ToString(a)) return a;
  }
  throw Error("unknown head activation '" + name +
              "', expected identity, tanh, relu, gelu, gelu_tanh or silu");
}

const char* ToString(HeadActivation activation) {
  switch (activation) {
    case HeadActivation::kIdentity:
      return "identity";
    case HeadActivation::kTanh:
      return "tanh";
    case HeadActivation::kRelu:
      return "relu";
    case HeadActivation::kGelu:
      return "gelu";
    case HeadActivation::kGeluTanh:
      return "gelu_tanh";
    case HeadActivation::kSilu:
      return "silu";
  }
  return "?";
}

DenseHead::DenseHead(const Weights& weights, const std::string& prefix, int64_t in,
                     const std::vector<DenseProduct>& products)
    : prefix_(prefix), in_(in), max_width_(in), products_(products) {
  int64_t width = in;
  for (size_t i = 0; i < products.size(); ++i) {
    const DenseProduct& p = products[i];
    const std::string at = prefix + std::to_string(i) + ".";
    linears_.emplace_back(weights, at + "weight", p.bias ? at + "bias" : "", p.out, width,
                          Precision::kFp32);
    norms_.emplace_back();
    if (p.norm) {
      LayerNormOptions o;
      o.d_model = p.out;
      o.eps = static_cast<float>(p.norm->eps);
      o.bias = p.norm->bias;
      norms_.back().emplace(weights, at + "norm.", o);
    }
    width = p.out;
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
    if (products_[i].bias) names.push_back(prefix_ + std::to_string(i) + ".bias");
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
    const auto at = static_cast<size_t>(i);
    const DenseProduct& p = products_[at];
    linears_[at].Forward(from, rows, to, KernelActivation(p.activation), nullptr);
    if (p.activation == HeadActivation::kTanh) {
      for (int64_t k = 0; k < rows * p.out; ++k) to[k] = std::tanh(to[k]);
    }
    if (norms_[at]) norms_[at]->Forward(to, rows, to);
    from = to;
  }
}

}  // namespace phasor

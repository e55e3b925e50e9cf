// A few dense products over a few rows: a classification head or a pooler
// (BERT's pooler, RoBERTa's classification head, DistilBERT's pre_classifier
// and classifier, ModernBERT's prediction head and classifier) or a
// sentence-transformers Dense module, applied to one row per sequence after
// the encoder. Always float32, whatever the encoder's precision: a head costs
// a few products per sequence, not per token.
//
//   h_0 = x                                          x: [rows, in]
//   h_{i+1} = norm_i(act_i(h_i·W_iᵀ + b_i))          W_i: [out_i, in_i], b_i: [out_i]
//
// Product i's tensors are prefix + "{i}.weight" and, with a bias,
// prefix + "{i}.bias"; with a norm, prefix + "{i}.norm.weight" and, with its
// bias, prefix + "{i}.norm.bias" (a missing or misshapen one throws Error
// naming it); in_0 = in, in_{i+1} = out_i. norm_i is the identity without a
// norm.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/weights.h"
#include "layers/layer_norm.h"
#include "layers/linear.h"

namespace phasor {

// What follows a product: Hugging Face's heads use tanh (BERT's pooler,
// RoBERTa's classification head's dense), relu (DistilBERT's pre_classifier),
// the activations of ACT2FN a config may name (ModernBERT's
// classifier_activation: gelu, the erf form; gelu_tanh, its tanh form; silu)
// or nothing (the classifier that gives the logits).
enum class HeadActivation { kIdentity, kTanh, kRelu, kGelu, kGeluTanh, kSilu };

// "identity", "tanh", "relu", "gelu", "gelu_tanh", "silu"; Error naming the
// value and the choices.
HeadActivation ParseHeadActivation(const std::string& name);
const char* ToString(HeadActivation activation);

// A LayerNorm over a product's activated output (ModernBERT's prediction
// head's norm: nn.LayerNorm(eps=norm_eps, bias=norm_bias)).
struct HeadNorm {
  double eps = 1e-5;  // inside the square root, as PyTorch
  bool bias = true;   // false: nn.LayerNorm(bias=False)
};

// One product of a head: its output width, whether it has a bias, what
// follows it.
struct DenseProduct {
  DenseProduct() = default;
  DenseProduct(int64_t out_width, HeadActivation act, bool with_bias = true,
               std::optional<HeadNorm> then_norm = std::nullopt)
      : out(out_width), activation(act), bias(with_bias), norm(then_norm) {}

  int64_t out = 0;
  HeadActivation activation = HeadActivation::kIdentity;
  bool bias = true;              // false: nn.Linear(bias=False)
  std::optional<HeadNorm> norm;  // after the activation; none: nothing
};

class DenseHead {
 public:
  // Reads and packs the products' tensors (prefix + "{i}.weight" [out_i, in_i],
  // prefix + "{i}.bias" [out_i], and a norm's [out_i] each). Throws Error
  // naming a missing or misshapen tensor. weights must outlive this object
  // (the norms read theirs in place).
  DenseHead(const Weights& weights, const std::string& prefix, int64_t in,
            const std::vector<DenseProduct>& products);

  int64_t in() const { return in_; }
  int64_t size() const { return static_cast<int64_t>(products_.size()); }
  // The width after the first n products (n 0: in()).
  int64_t out(int64_t n) const;
  // The widest output of any product: the rows of scratch Forward needs.
  int64_t max_width() const { return max_width_; }
  // The names of the float32 tensors it packed (a model releases them); not
  // the norms', which it reads in place.
  std::vector<std::string> TensorNames() const;

  // Runs the first n products (1 <= n <= size()) over rows rows.
  // x: [rows, in()]; out and scratch: room for [rows, max_width()] each (the
  // products before the last alternate between them); none may overlap
  // another. out then holds [rows, out(n)], row-major. Allocates nothing.
  // Each row's result depends on that row alone.
  void Forward(const float* x, int64_t rows, int64_t n, float* out, float* scratch) const;

 private:
  std::string prefix_;
  int64_t in_ = 0;
  int64_t max_width_ = 0;
  std::vector<DenseProduct> products_;
  std::vector<Linear> linears_;                  // [size()], float32
  std::vector<std::optional<LayerNorm>> norms_;  // [size()], empty where none
};

}  // namespace phasor

// The norm of a layer over d_model features: torch.nn.LayerNorm with its
// weight and bias (or without the bias: nn.LayerNorm(bias=False)), or RMSNorm
// (engine/kernels/rms_norm.h: Llama's, Qwen's, and Gemma's (1 + w) form).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/weights.h"

namespace phasor {

enum class NormKind { kLayerNorm, kRms };

struct LayerNormOptions {
  int64_t d_model = 0;
  float eps = 1e-5f;  // inside the square root, as PyTorch
  NormKind kind = NormKind::kLayerNorm;
  // kLayerNorm: whether the norm has a bias (false: none, as a bias of 0).
  bool bias = true;
  // kRms: added to every weight (Gemma's 1 + w); 0 otherwise.
  float weight_offset = 0.0f;
};

class LayerNorm {
 public:
  // Requires prefix + "weight" [d_model] and, for a LayerNorm with a bias,
  // prefix + "bias" [d_model], e.g. prefix "layers.0.norm1." or "norm." (the
  // final norm). weights must outlive this object. Throws Error naming the
  // tensor if one is missing or misshapen, or for d_model < 1 or eps < 0.
  LayerNorm(const Weights& weights, const std::string& prefix, const LayerNormOptions& options);

  // x, out: [tokens, d_model] row-major; out may equal x. Rows in parallel.
  void Forward(const float* x, int64_t tokens, float* out) const;

  // out = LayerNorm(x + residual), fused (post-LN). out may equal x or residual.
  void ForwardAdd(const float* x, const float* residual, int64_t tokens, float* out) const;

  // Forward's rows on the calling thread alone (residual: null or added
  // first): inside a parallel task, or for a few rows (a head's q).
  void Rows(const float* x, const float* residual, int64_t rows, float* out) const;

  const LayerNormOptions& options() const { return options_; }
  const float* gamma() const { return gamma_; }  // [d_model]
  // [d_model]; zeros without a bias
  const float* beta() const { return beta_ != nullptr ? beta_ : zeros_.data(); }

 private:
  LayerNormOptions options_;
  const float* gamma_;           // [d_model]
  const float* beta_ = nullptr;  // [d_model]: the bias; null without one
  std::vector<float> zeros_;     // [d_model] without a bias
};

// The end of a sublayer, fused into its last product while the rows are in
// cache: out = norm(before(y) + residual), row by row (post-LN: norm1(x +
// sa(x)); pre-LN: x + sa(norm1(x)) with no norm; Gemma's sandwich: x +
// post_norm(sa(norm1(x))) with before). Empty: out = y.
struct ResidualNorm {
  const float* residual = nullptr;    // [tokens, d_model], added to y; may equal out; null: none
  const LayerNorm* norm = nullptr;    // applied after the residual; null: none
  const LayerNorm* before = nullptr;  // applied to y before the residual; null: none

  bool empty() const { return residual == nullptr && norm == nullptr && before == nullptr; }
  // y, out: the rows [row0, row0 + rows) of the sublayer's result and output,
  // [rows, d_model] each (y a scratch tile, overwritten with before; out may
  // not overlap y). Serial inside a parallel region.
  void Apply(float* y, int64_t row0, int64_t rows, int64_t d_model, float* out) const;
};

}  // namespace phasor

// torch.nn.LayerNorm over d_model features, with its weight and bias.
#pragma once

#include <cstdint>
#include <string>

#include "engine/weights.h"

namespace phasor {

struct LayerNormOptions {
  int64_t d_model = 0;
  float eps = 1e-5f;  // inside the square root, as PyTorch
};

class LayerNorm {
 public:
  // Requires prefix + "weight" [d_model] and prefix + "bias" [d_model], e.g.
  // prefix "layers.0.norm1." or "norm." (the final norm). weights must outlive
  // this object. Throws Error naming the tensor if one is missing or misshapen,
  // or for d_model < 1 or eps < 0.
  LayerNorm(const Weights& weights, const std::string& prefix, const LayerNormOptions& options);

  // x, out: [tokens, d_model] row-major; out may equal x. Rows in parallel.
  void Forward(const float* x, int64_t tokens, float* out) const;

  // out = LayerNorm(x + residual), fused (post-LN). out may equal x or residual.
  void ForwardAdd(const float* x, const float* residual, int64_t tokens, float* out) const;

  const LayerNormOptions& options() const { return options_; }
  const float* gamma() const { return gamma_; }  // [d_model]
  const float* beta() const { return beta_; }    // [d_model]

 private:
  LayerNormOptions options_;
  const float* gamma_;  // [d_model]
  const float* beta_;   // [d_model]
};

// The end of a sublayer, fused into its last product while the rows are in
// cache: out = norm(y + residual), row by row (post-LN: norm1(x + sa(x));
// pre-LN: x + sa(norm1(x)) with no norm). Empty: out = y.
struct ResidualNorm {
  const float* residual = nullptr;  // [tokens, d_model], added to y; may equal out; null: none
  const LayerNorm* norm = nullptr;  // applied after the residual; null: none

  bool empty() const { return residual == nullptr && norm == nullptr; }
  // y, out: the rows [row0, row0 + rows) of the sublayer's result and output,
  // [rows, d_model] each (y a scratch tile; out may not overlap y). Serial
  // inside a parallel region.
  void Apply(const float* y, int64_t row0, int64_t rows, int64_t d_model, float* out) const;
};

}  // namespace phasor

#include "layers/linear_weights.h"

namespace phasor {

kernels::PackedWeights RequireLinear(const Weights& weights, const std::string& weight,
                                     const std::string& bias, int64_t out, int64_t in) {
  const float* w = weights.Require(weight, {out, in});  // [out, in]
  return kernels::PackedWeights(w, weights.Require(bias, {out}), out, in);
}

}  // namespace phasor

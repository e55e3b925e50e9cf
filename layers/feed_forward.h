// The position-wise feed-forward block of nn.TransformerEncoderLayer:
//
//   out = linear2(act(linear1(x)))   (eval mode: no dropout)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/kernels/activations.h"
#include "engine/weights.h"

namespace phasor {

struct FeedForwardOptions {
  int64_t d_model = 0;
  int64_t d_ff = 0;
  kernels::Activation activation = kernels::Activation::kRelu;
};

// Scratch for FeedForward::Forward: the hidden activations of up to
// max_tokens tokens. Sized once, reused by every call and by every layer of
// the same d_ff; one workspace per concurrent caller.
class FeedForwardWorkspace {
 public:
  FeedForwardWorkspace() = default;
  // Throws Error for negative sizes or if the memory cannot be allocated.
  FeedForwardWorkspace(int64_t max_tokens, int64_t d_ff);

  int64_t max_tokens() const { return max_tokens_; }
  int64_t d_ff() const { return d_ff_; }

 private:
  friend class FeedForward;
  int64_t max_tokens_ = 0;
  int64_t d_ff_ = 0;
  std::vector<float> hidden_;  // [max_tokens, d_ff]
};

class FeedForward {
 public:
  // Requires, under prefix (the encoder layer's, e.g. "layers.0."):
  //   linear1.weight [d_ff, d_model], linear1.bias [d_ff],
  //   linear2.weight [d_model, d_ff], linear2.bias [d_model].
  // weights must outlive this object. Throws Error naming the tensor if one is
  // missing or misshapen, or for non-positive sizes.
  FeedForward(const Weights& weights, const std::string& prefix, const FeedForwardOptions& options);

  // x, out: [tokens, d_model] row-major; out may equal x. Threads: inside the
  // linear kernels. Throws Error if ws is smaller than tokens or has another d_ff.
  void Forward(const float* x, int64_t tokens, float* out, FeedForwardWorkspace& ws) const;

  const FeedForwardOptions& options() const { return options_; }

 private:
  FeedForwardOptions options_;
  const float* w1_;  // [d_ff, d_model]
  const float* b1_;  // [d_ff]
  const float* w2_;  // [d_model, d_ff]
  const float* b2_;  // [d_model]
};

}  // namespace phasor

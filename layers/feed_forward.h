// The position-wise feed-forward block of nn.TransformerEncoderLayer:
//
//   out = linear2(act(linear1(x)))   (eval mode: no dropout)
//
// Fused by blocks of kRows tokens: each task computes the block's hidden
// activations [kRows, d_ff] into its thread's scratch (bias and activation in
// the product's epilogue), then linear2 and the optional residual + LayerNorm,
// while the block is in cache. One parallel region, and the hidden state
// never exists for the whole sequence: scratch O(threads · kRows · d_ff).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/kernels/activations.h"
#include "engine/weights.h"
#include "layers/layer_norm.h"
#include "layers/linear.h"
#include "layers/precision.h"

namespace phasor {

struct FeedForwardOptions {
  int64_t d_model = 0;
  int64_t d_ff = 0;
  kernels::Activation activation = kernels::Activation::kRelu;
  Precision precision = Precision::kFp32;  // of linear1 and linear2
};

// Scratch for FeedForward::Forward on up to max_tokens tokens: per thread, the
// hidden activations of one block of tokens (and with options, the block's
// output before a ResidualNorm epilogue). Sized once, reused by every call and
// by every layer of the same sizes; one workspace per concurrent caller.
class FeedForwardWorkspace {
 public:
  FeedForwardWorkspace() = default;
  // threads: how many threads may work on one call (< 1: NumThreads() now).
  // Without d_model (this form), ForwardBlock takes no epilogue. Throws Error for
  // negative or absurd sizes or if the memory cannot be allocated.
  FeedForwardWorkspace(int64_t max_tokens, int64_t d_ff, int threads = 0);
  FeedForwardWorkspace(int64_t max_tokens, const FeedForwardOptions& options, int threads = 0);

  int64_t max_tokens() const { return max_tokens_; }
  int64_t d_ff() const { return d_ff_; }

 private:
  friend class FeedForward;
  float* Hidden(int slot) { return scratch_.data() + slot * slot_floats_; }  // [kRows, d_ff]
  float* Tile(int slot) { return Hidden(slot) + kRows * d_ff_; }             // [kRows, d_model]
  // bf16 and int8: the block's rows rounded or quantized (Linear::ScratchBytes).
  uint8_t* Rows(int slot) { return rows_.data() + slot * slot_bytes_; }

  static constexpr int64_t kRows = 64;  // tokens per task (FeedForward::kBlockRows)
  int64_t max_tokens_ = 0;
  int64_t d_ff_ = 0;
  int64_t d_model_ = 0;  // 0: no epilogue tiles
  int threads_ = 0;
  int64_t slot_floats_ = 0;
  std::vector<float> scratch_;  // [threads, kRows, d_ff + d_model]
  Precision precision_ = Precision::kFp32;
  int64_t slot_bytes_ = 0;
  std::vector<uint8_t> rows_;  // [threads, slot_bytes]
};

class FeedForward {
 public:
  // Requires, under prefix (the encoder layer's, e.g. "layers.0."):
  //   linear1.weight [d_ff, d_model], linear1.bias [d_ff],
  //   linear2.weight [d_model, d_ff], linear2.bias [d_model].
  // weights must outlive this object. Throws Error naming the tensor if one is
  // missing or misshapen, or for non-positive sizes.
  FeedForward(const Weights& weights, const std::string& prefix, const FeedForwardOptions& options);

  // x, out: [tokens, d_model] row-major; out may equal x. Threads: blocks of
  // tokens over ParallelTasks. Throws Error if ws is smaller than tokens or
  // has another d_ff.
  void Forward(const float* x, int64_t tokens, float* out, FeedForwardWorkspace& ws) const;

  // Forward's two steps, for a caller that runs the blocks inside a parallel
  // pass of its own (EncoderLayer: the output projection, its norm and the
  // feed-forward of a block of rows in one task). CheckCall throws as Forward
  // does, and if ws lacks the tiles a non-empty epilogue needs; ForwardBlock
  // computes block's rows of a call on x and out ([tokens, d_model]) in the
  // scratch of its slot, then with an epilogue out = epilogue.norm(result +
  // epilogue.residual) (the residual may equal x and out): serial, allocates
  // nothing.
  static constexpr int64_t kBlockRows = FeedForwardWorkspace::kRows;
  struct Block {
    int64_t r0, n;  // rows [r0, r0 + n), n <= kBlockRows
    int slot;       // < the workspace's threads
  };
  void CheckCall(int64_t tokens, const FeedForwardWorkspace& ws,
                 const ResidualNorm& epilogue) const;
  void ForwardBlock(const float* x, float* out, const Block& block, FeedForwardWorkspace& ws,
                    const ResidualNorm& epilogue) const;

  const FeedForwardOptions& options() const { return options_; }
  int64_t packed_bytes() const { return linear1_.bytes() + linear2_.bytes(); }

 private:
  FeedForwardOptions options_;
  Linear linear1_;  // linear1.weight [d_ff, d_model] + linear1.bias [d_ff]
  Linear linear2_;  // linear2.weight [d_model, d_ff] + linear2.bias [d_model]
};

}  // namespace phasor

// The position-wise feed-forward block of nn.TransformerEncoderLayer:
//
//   out = linear2(act(linear1(x)))   (eval mode: no dropout)
//
// or, gated (the GLU family: SwiGLU with silu, GeGLU with gelu), linear1 of
// 2·d_ff outputs whose first d_ff are the "up" values u and the next d_ff the
// gate g:
//
//   out = linear2(u · act(g))
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
  bool gated = false;  // linear1.weight [2·d_ff, d_model]: u then g (see above)
  // Whether linear1 and linear2 carry a bias (linear1.bias, linear2.bias).
  bool bias1 = true;
  bool bias2 = true;
  // linear1's outputs: d_ff, or 2·d_ff gated.
  int64_t hidden_width() const { return gated ? 2 * d_ff : d_ff; }
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
  // [kRows, hidden_width]: linear1's outputs (gated: u | g, then u · act(g) in u's place)
  float* Hidden(int slot) { return scratch_.data() + slot * slot_floats_; }
  float* Tile(int slot) { return Hidden(slot) + kRows * hidden_width_; }  // [kRows, d_model]
  // bf16 and int8: the block's rows rounded or quantized (Linear::ScratchBytes).
  uint8_t* Rows(int slot) { return rows_.data() + slot * slot_bytes_; }

  static constexpr int64_t kRows = 64;  // tokens per task (FeedForward::kBlockRows)
  int64_t max_tokens_ = 0;
  int64_t d_ff_ = 0;
  int64_t hidden_width_ = 0;  // d_ff, or 2·d_ff gated
  int64_t d_model_ = 0;       // 0: no epilogue tiles
  int threads_ = 0;
  int64_t slot_floats_ = 0;
  std::vector<float> scratch_;  // [threads, kRows, hidden_width + d_model]
  Precision precision_ = Precision::kFp32;
  int64_t slot_bytes_ = 0;
  std::vector<uint8_t> rows_;  // [threads, slot_bytes]
};

class FeedForward {
 public:
  // Requires, under prefix (the encoder layer's, e.g. "layers.0."):
  //   linear1.weight [hidden_width, d_model], linear1.bias [hidden_width],
  //   linear2.weight [d_model, d_ff], linear2.bias [d_model]
  // (a bias only where options say the product has one).
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
  // Gated: each of the n rows of hidden ([n, 2·d_ff], u | g) gets u · act(g)
  // in its first d_ff values, which linear2 then reads.
  void Gate(float* hidden, int64_t n) const;
  FeedForwardOptions options_;
  Linear linear1_;  // linear1.weight [hidden_width, d_model] + linear1.bias [hidden_width]
  Linear linear2_;  // linear2.weight [d_model, d_ff] + linear2.bias [d_model]
};

}  // namespace phasor

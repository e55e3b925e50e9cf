// One layer of nn.TransformerEncoder: torch.nn.TransformerEncoderLayer
// (batch_first) in eval mode, so without dropout, and the wirings of later
// encoders around the same parts:
//
//   post-LN (norm_first false):  x = norm1(x + sa(x));  x = norm2(x + ff(x))
//   pre-LN  (norm_first true):   x = x + sa(norm1(x));  x = x + ff(norm2(x))
//   sandwich (pre-LN + sandwich, Gemma 3):
//     x = x + sa_out_norm(sa(norm1(x)));  x = x + ff_out_norm(ff(norm2(x)))
//
// The parts are options: the norms LayerNorm or RMSNorm (norm), pre-LN's
// norm1 left out (attention_norm false: ModernBERT's first layer), the
// attention's heads, kv heads, mask, scale and q/k norms (attention), the
// feed-forward gated or not, each product with or without a bias.
//
// The residual adds, and post-LN's norms, are fused into the products that
// precede them, and everything after attention is one parallel pass by blocks
// of FeedForward::kBlockRows rows: a task projects its rows' head outputs
// (out_proj) and adds the residual (post-LN: then norm1), pre-LN norms the
// rows for the feed-forward (norm2), and it runs the feed-forward with its
// residual (post-LN: then norm2) while the rows are in its core's cache. So a
// layer makes four parallel passes: q|k|v (two at bf16 and int8: the rows
// rounded or quantized, then the product), the keys and values by head, the
// query tiles, and that one; pre-LN adds norm1's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/kernels/activations.h"
#include "engine/parallel.h"
#include "engine/weights.h"
#include "layers/attention.h"
#include "layers/feed_forward.h"
#include "layers/layer_norm.h"
#include "layers/spans.h"

namespace phasor {

// Which of a layer's four products carry a bias (nn.Linear(bias=...)).
struct LayerBiases {
  bool in_proj = true;   // self_attn.in_proj_bias
  bool out_proj = true;  // self_attn.out_proj.bias
  bool linear1 = true;   // the feed-forward's linear1.bias
  bool linear2 = true;   // linear2.bias
};

// What AttentionOptions holds beyond d_model, n_heads, rotation, precision
// and biases, which an encoder layer takes from its own options.
struct AttentionShape {
  int64_t n_kv_heads = 0;  // 0: n_heads
  int64_t d_head = 0;      // 0: d_model / n_heads
  KeyWindow window = {};
  float scale = 0.0f;  // 0: 1/sqrt(d_head)
  QkNormOptions qk_norm = {};
  const float* distance_bias = nullptr;  // [n_heads, 2·bias_radius + 1]; null: none
  int64_t bias_radius = 0;
};

struct EncoderLayerOptions {
  int64_t d_model = 0;
  int64_t n_heads = 0;  // must divide d_model
  int64_t d_ff = 0;
  kernels::Activation activation = kernels::Activation::kRelu;
  bool norm_first = false;  // false: post-LN, true: pre-LN
  float layer_norm_eps = 1e-5f;
  // Passed to self-attention (AttentionOptions::rotation); null: none.
  const QkRotation* rotation = nullptr;
  // Of the four weight products (attention's projections, linear1, linear2).
  Precision precision = Precision::kFp32;
  // A gated feed-forward (FeedForwardOptions::gated: SwiGLU, GeGLU).
  bool gated_ff = false;
  LayerBiases bias;
  // The norms' kind, bias and weight offset (d_model and eps from above).
  LayerNormOptions norm = {};
  // Attention beyond d_model, n_heads and rotation (AttentionOptions): kv
  // heads, head width, window, scale, q/k norms.
  AttentionShape attention = {};
  bool sandwich = false;       // pre-LN only: sa_out_norm, ff_out_norm
  bool attention_norm = true;  // pre-LN only: false leaves norm1 out
};

// Everything EncoderLayer::Forward needs besides its input and output, sized
// once for up to max_tokens tokens (batch · seq) and `threads` threads (< 1:
// NumThreads() now). Every layer of a model has the same shape, so one
// workspace serves the whole stack; one workspace per concurrent caller.
// Throws Error for bad sizes or if the memory cannot be allocated.
class EncoderLayerWorkspace {
 public:
  EncoderLayerWorkspace() = default;
  EncoderLayerWorkspace(int64_t max_tokens, const EncoderLayerOptions& options, int threads = 0);

  // Bytes such a workspace holds for max_tokens tokens (saturating): the
  // attention's (AttentionWorkspace::Bytes) and pre-LN's normed rows; the
  // per-thread tiles, a few MiB at most, are left out.
  static uint64_t Bytes(int64_t max_tokens, const EncoderLayerOptions& options);

  int64_t max_tokens() const { return max_tokens_; }

 private:
  friend class EncoderLayer;
  int64_t max_tokens_ = 0;
  int64_t d_model_ = 0;
  AttentionWorkspace attention_;
  FeedForwardWorkspace feed_forward_;
  std::vector<float> normed_;  // [max_tokens, d_model]: pre-LN's norm1(x), norm2(x)
};

class EncoderLayer {
 public:
  // Declares, under prefix (e.g. "layers.0."): self_attn.in_proj_weight,
  // self_attn.in_proj_bias, self_attn.out_proj.weight, self_attn.out_proj.bias,
  // linear1.weight, linear1.bias, linear2.weight, linear2.bias, norm1.weight,
  // norm1.bias, norm2.weight, norm2.bias (shapes as in PyTorch; biases as the
  // options say), with sandwich sa_out_norm.weight and ff_out_norm.weight,
  // with q/k norms self_attn.q_norm.weight and self_attn.k_norm.weight. weights must
  // outlive this object. Throws Error naming the tensor if one is missing or
  // misshapen, or for inconsistent sizes.
  EncoderLayer(const Weights& weights, const std::string& prefix,
               const EncoderLayerOptions& options);

  // The tensors under prefix that the layer copies into packed weights of its
  // own (the four products' weight matrices): a model may release them from
  // its Weights once the layer is built (Weights::Release).
  static std::vector<std::string> PackedTensorNames(const std::string& prefix);

  // x, out: [batch·seq, d_model] row-major (sequence b in rows b·seq ..); out
  // may equal x, so a stack of layers can run in place. lengths: [batch] valid
  // tokens per sequence (null: all seq); keys past a sequence's length are
  // masked out of attention. Rows at padded positions are computed but
  // meaningless: the caller zeroes them if it needs to. Throws Error as
  // MultiHeadSelfAttention::Forward does, or if ws has another shape.
  void Forward(const float* x, int64_t batch, int64_t seq, const int64_t* lengths, float* out,
               EncoderLayerWorkspace& ws) const;

  // The same over sequences at any rows (layers/spans.h), e.g. packed back to
  // back so that every row is a real token: x, out: [rows, d_model]. Each
  // sequence's rows are the same bits wherever it sits and whatever else is
  // in the batch. Throws Error as MultiHeadSelfAttention::ForwardSpans.
  void ForwardSpans(const float* x, int64_t rows, const Spans& spans, float* out,
                    EncoderLayerWorkspace& ws) const;

  const EncoderLayerOptions& options() const { return options_; }
  // Bytes of the packed weights of the four products.
  int64_t packed_bytes() const { return self_attn_.packed_bytes() + feed_forward_.packed_bytes(); }

 private:
  // The layer around its self-attention: attend(in) runs it on in ([tokens,
  // d_model]) up to its head outputs (MultiHeadSelfAttention::Attend).
  void Run(const float* x, int64_t tokens, float* out, EncoderLayerWorkspace& ws,
           FunctionRef<void(const float*)> attend) const;

  EncoderLayerOptions options_;
  MultiHeadSelfAttention self_attn_;
  FeedForward feed_forward_;
  std::optional<LayerNorm> norm1_;  // absent without attention_norm
  LayerNorm norm2_;
  std::optional<LayerNorm> sa_out_norm_, ff_out_norm_;  // sandwich
};

}  // namespace phasor

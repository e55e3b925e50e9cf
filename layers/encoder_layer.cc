#include "layers/encoder_layer.h"

#include <algorithm>
#include <new>

#include "engine/error.h"
#include "engine/memory_limit.h"

namespace phasor {
namespace {

AttentionOptions AttentionOf(const EncoderLayerOptions& o) {
  return {o.d_model, o.n_heads, o.rotation, o.precision, o.bias.in_proj, o.bias.out_proj};
}
FeedForwardOptions FeedForwardOf(const EncoderLayerOptions& o) {
  return {o.d_model, o.d_ff, o.activation, o.precision, o.gated_ff, o.bias.linear1, o.bias.linear2};
}
LayerNormOptions NormOf(const EncoderLayerOptions& o) { return {o.d_model, o.layer_norm_eps}; }

}  // namespace

std::vector<std::string> EncoderLayer::PackedTensorNames(const std::string& prefix) {
  return {prefix + "self_attn.in_proj_weight", prefix + "self_attn.out_proj.weight",
          prefix + "linear1.weight", prefix + "linear2.weight"};
}

EncoderLayerWorkspace::EncoderLayerWorkspace(int64_t max_tokens, const EncoderLayerOptions& options,
                                             int threads)
    : max_tokens_(max_tokens),
      d_model_(options.d_model),
      attention_(max_tokens, AttentionOf(options), threads),
      feed_forward_(max_tokens, FeedForwardOf(options), threads) {
  // The attention workspace has checked max_tokens and d_model.
  try {
    normed_.assign(static_cast<size_t>(max_tokens * options.d_model), 0.0f);
  } catch (const std::bad_alloc&) {
    throw Error("encoder layer workspace: cannot allocate " + std::to_string(max_tokens) + " x " +
                std::to_string(options.d_model) + " floats");
  }
}

uint64_t EncoderLayerWorkspace::Bytes(int64_t max_tokens, const EncoderLayerOptions& options) {
  const auto tokens = static_cast<uint64_t>(std::max<int64_t>(max_tokens, 0));
  const uint64_t normed =
      SaturatingMul(tokens, static_cast<uint64_t>(options.d_model) * sizeof(float));
  const uint64_t attention = AttentionWorkspace::Bytes(max_tokens, AttentionOf(options));
  return attention > UINT64_MAX - normed ? UINT64_MAX : attention + normed;
}

EncoderLayer::EncoderLayer(const Weights& weights, const std::string& prefix,
                           const EncoderLayerOptions& options)
    : options_(options),
      self_attn_(weights, prefix + "self_attn.", AttentionOf(options)),
      feed_forward_(weights, prefix, FeedForwardOf(options)),
      norm1_(weights, prefix + "norm1.", NormOf(options)),
      norm2_(weights, prefix + "norm2.", NormOf(options)) {}

void EncoderLayer::Forward(const float* x, int64_t batch, int64_t seq, const int64_t* lengths,
                           float* out, EncoderLayerWorkspace& ws) const {
  if (batch < 0 || seq < 0 || (seq > 0 && batch > ws.max_tokens_ / seq)) {
    throw Error("encoder layer: batch " + std::to_string(batch) + " x seq " + std::to_string(seq) +
                " does not fit a workspace of " + std::to_string(ws.max_tokens_) + " tokens");
  }
  Run(x, batch * seq, out, ws, [&](const float* in) {
    self_attn_.Attend(in, {batch, seq, lengths}, ws.attention_);
  });
}

void EncoderLayer::ForwardSpans(const float* x, int64_t rows, const Spans& spans, float* out,
                                EncoderLayerWorkspace& ws) const {
  if (rows < 0 || rows > ws.max_tokens_) {
    throw Error("encoder layer: " + std::to_string(rows) + " rows do not fit a workspace of " +
                std::to_string(ws.max_tokens_) + " tokens");
  }
  Run(x, rows, out, ws,
      [&](const float* in) { self_attn_.Attend(in, rows, spans, ws.attention_); });
}

void EncoderLayer::Run(const float* x, int64_t tokens, float* out, EncoderLayerWorkspace& ws,
                       FunctionRef<void(const float*)> attend) const {
  const int64_t d_model = options_.d_model;
  if (ws.d_model_ != d_model) {
    throw Error("encoder layer: workspace was made for d_model " + std::to_string(ws.d_model_) +
                ", layer has d_model " + std::to_string(d_model));
  }
  // The sublayers check the rest (lengths, n_heads, d_ff), before any work.
  const bool pre = options_.norm_first;
  float* normed = ws.normed_.data();  // [tokens, d_model]
  feed_forward_.CheckCall(tokens, ws.feed_forward_, {out, pre ? nullptr : &norm2_});
  if (pre) norm1_.Forward(x, tokens, normed);
  attend(pre ? normed : x);  // x is not read again but as the residual
  // post-LN: out = norm1(x + sa(x)), then out = norm2(out + ff(out)).
  // pre-LN:  out = x + sa(norm1(x)), then out = out + ff(norm2(out)).
  // Row by row, so a block's rows of x are read only by its task: out may
  // equal x. The two workspaces were made for the same threads.
  constexpr int64_t kRows = FeedForward::kBlockRows, kOut = AttentionWorkspace::kOutRows;
  const ResidualNorm after_attention{x, pre ? nullptr : &norm1_};
  ParallelTasks((tokens + kRows - 1) / kRows, ws.attention_.threads(), [&](int64_t t, int slot) {
    const int64_t r0 = t * kRows, n = std::min(kRows, tokens - r0);
    for (int64_t i = r0; i < r0 + n; i += kOut) {  // the attention's output tiles
      const int64_t m = std::min(kOut, r0 + n - i);
      after_attention.Apply(self_attn_.ProjectBlock(ws.attention_, i, m, slot), i, m, d_model,
                            out + i * d_model);
    }
    if (!pre) {
      feed_forward_.ForwardBlock(out, out, {r0, n, slot}, ws.feed_forward_, {out, &norm2_});
    } else {
      norm2_.Forward(out + r0 * d_model, n, normed + r0 * d_model);
      feed_forward_.ForwardBlock(normed, out, {r0, n, slot}, ws.feed_forward_, {out, nullptr});
    }
  });
}

}  // namespace phasor

#include "layers/encoder_layer.h"

#include <algorithm>
#include <new>

#include "engine/error.h"
#include "engine/memory_limit.h"

namespace phasor {
namespace {

AttentionOptions AttentionOf(const EncoderLayerOptions& o) {
  const AttentionShape& a = o.attention;
  return {o.d_model,       o.n_heads,       o.rotation,   o.precision, o.bias.in_proj,
          o.bias.out_proj, a.n_kv_heads,    a.d_head,     a.window,    a.scale,
          a.qk_norm,       a.distance_bias, a.bias_radius};
}
FeedForwardOptions FeedForwardOf(const EncoderLayerOptions& o) {
  return {o.d_model, o.d_ff, o.activation, o.precision, o.gated_ff, o.bias.linear1, o.bias.linear2};
}
LayerNormOptions NormOf(const EncoderLayerOptions& o) {
  LayerNormOptions n = o.norm;
  n.d_model = o.d_model;
  n.eps = o.layer_norm_eps;
  return n;
}

// An optional norm under prefix + name: made when on.
std::optional<LayerNorm> NormIf(bool on, const Weights& w, const std::string& name,
                                const EncoderLayerOptions& o) {
  if (!on) return std::nullopt;
  return std::optional<LayerNorm>(std::in_place, w, name, NormOf(o));
}

const EncoderLayerOptions& Checked(const EncoderLayerOptions& o, const std::string& prefix) {
  if (!o.norm_first && (o.sandwich || !o.attention_norm)) {
    throw Error("encoder layer '" + prefix +
                "': sandwich norms and a layer without norm1 need pre-LN (norm_first)");
  }
  return o;
}

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
    : options_(Checked(options, prefix)),
      self_attn_(weights, prefix + "self_attn.", AttentionOf(options)),
      feed_forward_(weights, prefix, FeedForwardOf(options)),
      norm1_(NormIf(options.attention_norm, weights, prefix + "norm1.", options)),
      norm2_(weights, prefix + "norm2.", NormOf(options)),
      sa_out_norm_(NormIf(options.sandwich, weights, prefix + "sa_out_norm.", options)),
      ff_out_norm_(NormIf(options.sandwich, weights, prefix + "ff_out_norm.", options)) {}

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
  const LayerNorm* sa_out = sa_out_norm_ ? &*sa_out_norm_ : nullptr;
  const LayerNorm* ff_out = ff_out_norm_ ? &*ff_out_norm_ : nullptr;
  feed_forward_.CheckCall(tokens, ws.feed_forward_, {out, pre ? nullptr : &norm2_, ff_out});
  const float* attention_in = x;  // pre-LN without norm1 (attention_norm false): x itself
  if (pre && norm1_) {
    norm1_->Forward(x, tokens, normed);
    attention_in = normed;
  }
  attend(attention_in);  // x is not read again but as the residual
  // post-LN: out = norm1(x + sa(x)), then out = norm2(out + ff(out)).
  // pre-LN:  out = x + sa_out(sa(norm1(x))), then out = out + ff_out(ff(norm2(out))),
  // sa_out and ff_out the identity unless sandwich.
  // Row by row, so a block's rows of x are read only by its task: out may
  // equal x. The two workspaces were made for the same threads.
  constexpr int64_t kRows = FeedForward::kBlockRows, kOut = AttentionWorkspace::kOutRows;
  const ResidualNorm after_attention{x, pre ? nullptr : &*norm1_, sa_out};
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
      norm2_.Rows(out + r0 * d_model, nullptr, n, normed + r0 * d_model);
      feed_forward_.ForwardBlock(normed, out, {r0, n, slot}, ws.feed_forward_,
                                 {out, nullptr, ff_out});
    }
  });
}

}  // namespace phasor

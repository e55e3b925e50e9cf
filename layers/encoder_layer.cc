#include "layers/encoder_layer.h"

#include <new>

#include "engine/error.h"

namespace phasor {
namespace {

AttentionOptions AttentionOf(const EncoderLayerOptions& o) {
  return {o.d_model, o.n_heads, o.rotation, o.precision};
}
FeedForwardOptions FeedForwardOf(const EncoderLayerOptions& o) {
  return {o.d_model, o.d_ff, o.activation, o.precision};
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
  Run(x, batch * seq, out, ws, [&](const float* in, float* o, const ResidualNorm& epilogue) {
    self_attn_.Forward(in, {batch, seq, lengths}, o, ws.attention_, epilogue);
  });
}

void EncoderLayer::ForwardSpans(const float* x, int64_t rows, const Spans& spans, float* out,
                                EncoderLayerWorkspace& ws) const {
  if (rows < 0 || rows > ws.max_tokens_) {
    throw Error("encoder layer: " + std::to_string(rows) + " rows do not fit a workspace of " +
                std::to_string(ws.max_tokens_) + " tokens");
  }
  Run(x, rows, out, ws, [&](const float* in, float* o, const ResidualNorm& epilogue) {
    self_attn_.ForwardSpans(in, rows, spans, o, ws.attention_, epilogue);
  });
}

void EncoderLayer::Run(const float* x, int64_t tokens, float* out, EncoderLayerWorkspace& ws,
                       FunctionRef<void(const float*, float*, const ResidualNorm&)> attend) const {
  const int64_t d_model = options_.d_model;
  if (ws.d_model_ != d_model) {
    throw Error("encoder layer: workspace was made for d_model " + std::to_string(ws.d_model_) +
                ", layer has d_model " + std::to_string(d_model));
  }
  // The sublayers check the rest (lengths, n_heads, d_ff).
  if (!options_.norm_first) {
    // out = norm1(x + sa(x)), then out = norm2(out + ff(out)).
    attend(x, out, {x, &norm1_});
    feed_forward_.Forward(out, tokens, out, ws.feed_forward_, {out, &norm2_});
  } else {
    float* normed = ws.normed_.data();  // [tokens, d_model]
    norm1_.Forward(x, tokens, normed);
    // out = x + sa(norm1(x)), then out = out + ff(norm2(out)).
    attend(normed, out, {x, nullptr});
    norm2_.Forward(out, tokens, normed);
    feed_forward_.Forward(normed, tokens, out, ws.feed_forward_, {out, nullptr});
  }
}

}  // namespace phasor

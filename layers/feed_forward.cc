#include "layers/feed_forward.h"

#include <new>

#include "engine/error.h"
#include "engine/kernels/linear.h"

namespace phasor {
namespace {

constexpr int64_t kMaxFloats = int64_t{1} << 40;  // 4 TiB: a size past this is a mistake

const FeedForwardOptions& Checked(const FeedForwardOptions& options, const std::string& prefix) {
  if (options.d_model < 1 || options.d_ff < 1) {
    throw Error("feed-forward '" + prefix + "': d_model and d_ff must be positive, got " +
                std::to_string(options.d_model) + " and " + std::to_string(options.d_ff));
  }
  return options;
}

}  // namespace

FeedForwardWorkspace::FeedForwardWorkspace(int64_t max_tokens, int64_t d_ff)
    : max_tokens_(max_tokens), d_ff_(d_ff) {
  if (max_tokens < 0 || d_ff < 0) throw Error("feed-forward workspace: negative size");
  if (d_ff > 0 && max_tokens > kMaxFloats / d_ff) {
    throw Error("feed-forward workspace: " + std::to_string(max_tokens) + " x " +
                std::to_string(d_ff) + " floats is too large");
  }
  try {
    hidden_.resize(static_cast<size_t>(max_tokens * d_ff));
  } catch (const std::bad_alloc&) {
    throw Error("feed-forward workspace: cannot allocate " + std::to_string(max_tokens) + " x " +
                std::to_string(d_ff) + " floats");
  }
}

FeedForward::FeedForward(const Weights& weights, const std::string& prefix,
                         const FeedForwardOptions& options)
    : options_(Checked(options, prefix)),
      w1_(weights.Require(prefix + "linear1.weight", {options.d_ff, options.d_model})),
      b1_(weights.Require(prefix + "linear1.bias", {options.d_ff})),
      w2_(weights.Require(prefix + "linear2.weight", {options.d_model, options.d_ff})),
      b2_(weights.Require(prefix + "linear2.bias", {options.d_model})) {}

void FeedForward::Forward(const float* x, int64_t tokens, float* out,
                          FeedForwardWorkspace& ws) const {
  const int64_t d_model = options_.d_model, d_ff = options_.d_ff;
  if (tokens < 0) throw Error("feed-forward: negative token count");
  if (ws.d_ff_ != d_ff || tokens > ws.max_tokens_) {
    throw Error("feed-forward: workspace holds " + std::to_string(ws.max_tokens_) + " x " +
                std::to_string(ws.d_ff_) + ", needs " + std::to_string(tokens) + " x " +
                std::to_string(d_ff));
  }
  float* hidden = ws.hidden_.data();  // [tokens, d_ff]
  kernels::Linear(x, tokens, d_model, w1_, b1_, d_ff, hidden, options_.activation);
  kernels::Linear(hidden, tokens, d_ff, w2_, b2_, d_model, out);
}

}  // namespace phasor

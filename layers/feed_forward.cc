#include "layers/feed_forward.h"

#include <algorithm>
#include <cassert>
#include <new>

#include "engine/error.h"
#include "engine/kernels/gemm.h"
#include "engine/parallel.h"
#include "engine/size_limits.h"

namespace phasor {
namespace {

const FeedForwardOptions& Checked(const FeedForwardOptions& options, const std::string& prefix) {
  if (options.d_model < 1 || options.d_ff < 1) {
    throw Error("feed-forward '" + prefix + "': d_model and d_ff must be positive, got " +
                std::to_string(options.d_model) + " and " + std::to_string(options.d_ff));
  }
  return options;
}

}  // namespace

FeedForwardWorkspace::FeedForwardWorkspace(int64_t max_tokens, int64_t d_ff, int threads)
    : FeedForwardWorkspace(max_tokens, FeedForwardOptions{0, d_ff}, threads) {}

FeedForwardWorkspace::FeedForwardWorkspace(int64_t max_tokens, const FeedForwardOptions& options,
                                           int threads)
    : max_tokens_(max_tokens),
      d_ff_(options.d_ff),
      hidden_width_(options.hidden_width()),
      d_model_(options.d_model),
      threads_(threads > 0 ? threads : std::max(NumThreads(), 1)),
      precision_(options.precision) {
  const int64_t d_ff = options.d_ff, width = hidden_width_;
  if (max_tokens < 0 || d_ff < 0 || d_model_ < 0) {
    throw Error("feed-forward workspace: negative size");
  }
  // The hidden state of every token never exists at once, but a request for
  // more than kMaxBufferFloats of it is a mistake all the same.
  if ((width > 0 && max_tokens > kMaxBufferFloats / width) ||
      width + d_model_ > kMaxBufferFloats / kRows) {
    throw Error("feed-forward workspace: " + std::to_string(max_tokens) + " x " +
                std::to_string(d_ff) + " floats is too large");
  }
  slot_floats_ = kRows * (width + d_model_);
  // linear1 reads d_model values a row, linear2 d_ff; one after the other.
  slot_bytes_ = std::max(Linear::ScratchBytes(precision_, kRows, d_model_),
                         Linear::ScratchBytes(precision_, kRows, d_ff));
  try {
    scratch_.assign(static_cast<size_t>(threads_ * slot_floats_), 0.0f);
    rows_.assign(static_cast<size_t>(threads_ * slot_bytes_), 0);
  } catch (const std::bad_alloc&) {
    throw Error("feed-forward workspace: cannot allocate " + std::to_string(threads_) + " x " +
                std::to_string(slot_floats_) + " floats");
  }
}

FeedForward::FeedForward(const Weights& weights, const std::string& prefix,
                         const FeedForwardOptions& options)
    : options_(Checked(options, prefix)),
      linear1_(weights, prefix + "linear1.weight", options.bias1 ? prefix + "linear1.bias" : "",
               options.hidden_width(), options.d_model, options.precision),
      linear2_(weights, prefix + "linear2.weight", options.bias2 ? prefix + "linear2.bias" : "",
               options.d_model, options.d_ff, options.precision) {}

void FeedForward::CheckCall(int64_t tokens, const FeedForwardWorkspace& ws,
                            const ResidualNorm& epilogue) const {
  const int64_t d_model = options_.d_model, d_ff = options_.d_ff;
  if (tokens < 0) throw Error("feed-forward: negative token count");
  if (ws.d_ff_ != d_ff || ws.hidden_width_ != options_.hidden_width() || tokens > ws.max_tokens_) {
    throw Error("feed-forward: workspace holds " + std::to_string(ws.max_tokens_) + " x " +
                std::to_string(ws.hidden_width_) + ", needs " + std::to_string(tokens) + " x " +
                std::to_string(options_.hidden_width()));
  }
  if (!epilogue.empty() && ws.d_model_ != d_model) {
    throw Error("feed-forward: a residual or norm epilogue needs a workspace made with d_model " +
                std::to_string(d_model));
  }
  if (ws.precision_ != options_.precision) {
    throw Error(std::string("feed-forward: workspace made for precision ") +
                ToString(ws.precision_) + ", the layer is " + ToString(options_.precision));
  }
}

void FeedForward::ForwardBlock(const float* x, float* out, const Block& block,
                               FeedForwardWorkspace& ws, const ResidualNorm& epilogue) const {
  const int64_t d_model = options_.d_model, width = options_.hidden_width();
  const auto [r0, n, slot] = block;
  assert(n >= 0 && n <= kBlockRows && slot >= 0 && slot < ws.threads_);
  float* hidden = ws.Hidden(slot);  // [n, width]
  uint8_t* scratch = ws.Rows(slot);
  if (options_.gated) {
    linear1_.Block({x + r0 * d_model, d_model}, n, hidden, width, kernels::Activation::kIdentity,
                   scratch);
    Gate(hidden, n);
  } else {
    linear1_.Block({x + r0 * d_model, d_model}, n, hidden, width, options_.activation, scratch);
  }
  // The block's rows of x are read only by this task, so out may equal x.
  if (epilogue.empty()) {
    linear2_.Block({hidden, width}, n, out + r0 * d_model, d_model, kernels::Activation::kIdentity,
                   scratch);
  } else {
    float* tile = ws.Tile(slot);  // [n, d_model]
    linear2_.Block({hidden, width}, n, tile, d_model, kernels::Activation::kIdentity, scratch);
    epilogue.Apply(tile, r0, n, d_model, out + r0 * d_model);
  }
}

void FeedForward::Gate(float* hidden, int64_t n) const {
  const int64_t d_ff = options_.d_ff;
  for (int64_t r = 0; r < n; ++r) {
    float* u = hidden + r * 2 * d_ff;  // [d_ff] up values, then [d_ff] gate
    float* g = u + d_ff;
    kernels::Activate(options_.activation, g, d_ff, g);
    for (int64_t j = 0; j < d_ff; ++j) u[j] *= g[j];
  }
}

void FeedForward::Forward(const float* x, int64_t tokens, float* out,
                          FeedForwardWorkspace& ws) const {
  CheckCall(tokens, ws, {});
  ParallelTasks((tokens + kBlockRows - 1) / kBlockRows, ws.threads_, [&](int64_t t, int slot) {
    ForwardBlock(x, out, {t * kBlockRows, std::min(kBlockRows, tokens - t * kBlockRows), slot}, ws,
                 {});
  });
}

}  // namespace phasor

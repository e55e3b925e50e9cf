#include "layers/layer_norm.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/error.h"
#include "engine/kernels/elementwise.h"
#include "engine/kernels/layer_norm.h"
#include "engine/kernels/rms_norm.h"
#include "engine/parallel.h"

namespace phasor {
namespace {

// Fewest rows of a task: a row is only a few hundred values.
constexpr int64_t kRowGrain = 16;

// fn(begin, end) over one contiguous range of rows per thread (ParallelTasks).
void ForRows(int64_t tokens, FunctionRef<void(int64_t, int64_t)> fn) {
  const int64_t threads = NumThreads();
  const int64_t per = std::max(kRowGrain, (tokens + threads - 1) / threads);
  ParallelTasks((tokens + per - 1) / per, 0,
                [&](int64_t t, int /*slot*/) { fn(t * per, std::min(tokens, (t + 1) * per)); });
}

const LayerNormOptions& Checked(const LayerNormOptions& options, const std::string& prefix) {
  if (options.d_model < 1) {
    throw Error("layer norm '" + prefix + "': d_model must be positive, got " +
                std::to_string(options.d_model));
  }
  if (!(options.eps >= 0.0f) || !std::isfinite(options.eps)) {
    throw Error("layer norm '" + prefix + "': eps must be finite and >= 0");
  }
  return options;
}

}  // namespace

LayerNorm::LayerNorm(const Weights& weights, const std::string& prefix,
                     const LayerNormOptions& options)
    : options_(Checked(options, prefix)),
      gamma_(weights.Require(prefix + "weight", {options.d_model})) {
  if (options.kind == NormKind::kLayerNorm && options.bias) {
    beta_ = weights.Require(prefix + "bias", {options.d_model});
  } else {
    zeros_.assign(static_cast<size_t>(options.d_model), 0.0f);
  }
}

void LayerNorm::Rows(const float* x, const float* residual, int64_t rows, float* out) const {
  const int64_t d = options_.d_model;
  if (options_.kind == NormKind::kRms) {
    kernels::RmsNorm(x, residual, rows, d, {gamma_, options_.weight_offset, options_.eps}, out);
  } else if (residual != nullptr) {
    kernels::AddLayerNorm(x, residual, rows, d, {gamma_, beta(), options_.eps}, out);
  } else {
    kernels::LayerNorm(x, rows, d, {gamma_, beta(), options_.eps}, out);
  }
}

void LayerNorm::Forward(const float* x, int64_t tokens, float* out) const {
  const int64_t d = options_.d_model;
  ForRows(tokens, [&](int64_t begin, int64_t end) {
    Rows(x + begin * d, nullptr, end - begin, out + begin * d);
  });
}

void LayerNorm::ForwardAdd(const float* x, const float* residual, int64_t tokens,
                           float* out) const {
  const int64_t d = options_.d_model;
  ForRows(tokens, [&](int64_t begin, int64_t end) {
    Rows(x + begin * d, residual + begin * d, end - begin, out + begin * d);
  });
}

void ResidualNorm::Apply(float* y, int64_t row0, int64_t rows, int64_t d_model, float* out) const {
  const float* res = residual != nullptr ? residual + row0 * d_model : nullptr;
  if (before != nullptr) before->Rows(y, nullptr, rows, y);
  if (norm != nullptr) {
    if (res != nullptr) {
      norm->Rows(y, res, rows, out);
    } else {
      norm->Rows(y, nullptr, rows, out);
    }
  } else if (res != nullptr) {
    kernels::Add(y, res, rows * d_model, out);
  } else if (rows > 0) {
    std::memcpy(out, y, static_cast<size_t>(rows * d_model) * sizeof(float));
  }
}

}  // namespace phasor

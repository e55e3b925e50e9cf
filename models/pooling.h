// One vector per sequence from its final rows (sentence embeddings): the mean
// or the max of its rows, or its first row (a [CLS] token), or its last,
// optionally scaled to unit L2 norm.
#pragma once

#include <cstdint>
#include <string>

#include "models/head_output.h"  // the other way to one row per sequence

namespace phasor {

enum class Pooling {
  kNone,         // every row, no pooling
  kMean,         // the mean of the sequence's rows (sums in double)
  kCls,          // its first row
  kMax,          // the largest value of each column (NaN if any is NaN)
  kLast,         // its last row (sentence-transformers' lasttoken)
  kMeanSqrtLen,  // the sum of its rows over sqrt(rows) (sentence-transformers'
                 // mean_sqrt_len_tokens)
};

// "none", "mean", "cls", "max", "last", "mean_sqrt_len"; Error naming the value
// and the choices.
Pooling ParsePooling(const std::string& name);
const char* ToString(Pooling pooling);

// rows: [offsets[batch], d] packed rows, sequence b in rows offsets[b] ..
// offsets[b + 1] (at least one each); out: [batch, d]. spec.normalize: each output
// row divided by max(its L2 norm, 1e-12), as torch.nn.functional.normalize.
// spec.pooling must not be kNone. Serial: a pass over the rows.
// spec.dense (a sentence-transformers folder's Dense modules, applied after the
// pooling and before normalize) is not PoolRows' to apply: its caller's.
struct PoolSpec {
  Pooling pooling = Pooling::kMean;
  bool normalize = false;
  bool dense = false;
};
void PoolRows(const float* rows, const int64_t* offsets, int64_t batch, int64_t d,
              const PoolSpec& spec, float* out);

// rows: [n, d], each divided by max(its L2 norm, 1e-12) in place (sums in double).
void NormalizeRows(float* rows, int64_t n, int64_t d);

}  // namespace phasor

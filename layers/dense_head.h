// A few dense products over a few rows: a classification head or a pooler
// (BERT's pooler, RoBERTa's classification head, DistilBERT's pre_classifier
// and classifier) or a sentence-transformers Dense module, applied to one row
// per sequence after the encoder. Always float32, whatever the encoder's
// precision: a head costs a few products per sequence, not per token.
//
//   h_0 = x                                          x: [rows, in]
//   h_{i+1} = act_i(h_i·W_iᵀ + b_i)                  W_i: [out_i, in_i], b_i: [out_i]
//
// Product i's tensors are prefix + "{i}.weight" and prefix + "{i}.bias" (a
// missing or misshapen one throws Error naming it); in_0 = in, in_{i+1} = out_i.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/weights.h"
#include "layers/linear.h"

namespace phasor {

// What follows a product: Hugging Face's heads use tanh (BERT's pooler,
// RoBERTa's classification head's dense), relu (DistilBERT's pre_classifier)
// or nothing (the classifier that gives the logits).
enum class HeadActivation { kIdentity, kTanh, kRelu };

// "identity", "tanh", "relu"; Error naming the value and the choices.
HeadActivation ParseHeadActivation(const std::string& name);
const char* ToString(HeadActivation activation);

// One product of a head: its output width and what follows it.
struct DenseProduct {
  int64_t out = 0;
  HeadActivation activation = HeadActivation::kIdentity;
};

class DenseHead {
 public:
  // Reads and packs the products' tensors (prefix + "{i}.weight" [out_i, in_i],
  // prefix + "{i}.bias" [out_i]). Throws Error naming a missing or misshapen
  // tensor.
  DenseHead(const Weights& weights, const std::string& prefix, int64_t in,
            const std::vector<DenseProduct>& products);

  int64_t in() const { return in_; }
  int64_t size() const { return static_cast<int64_t>(products_.size()); }
  // The width after the first n products (n 0: in()).
  int64_t out(int64_t n) const;
  // The widest output of any product: the rows of scratch Forward needs.
  int64_t max_width() const { return max_width_; }
  // The names of the float32 tensors it packed (a model releases them).
  std::vector<std::string> TensorNames() const;

  // Runs the first n products (1 <= n <= size()) over rows rows.
  // x: [rows, in()]; out and scratch: room for [rows, max_width()] each (the
  // products before the last alternate between them); none may overlap
  // another. out then holds [rows, out(n)], row-major. Allocates nothing.
  void Forward(const float* x, int64_t rows, int64_t n, float* out, float* scratch) const;

 private:
  std::string prefix_;
  int64_t in_ = 0;
  int64_t max_width_ = 0;
  std::vector<DenseProduct> products_;
  std::vector<Linear> linears_;  // [size()], float32
};

}  // namespace phasor

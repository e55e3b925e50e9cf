// Non-finite values (NaN, +Inf, -Inf) in weights.
//
// phasor's policy: a model with non-finite weights still loads and runs (the
// values propagate as IEEE arithmetic says; no kernel loops on a value, so
// nothing hangs), but the CLI prints one warning line on stderr at load:
//   phasor: warning: m/model.safetensors: tensor 'layers.0.linear1.weight' holds
//   3 non-finite values (first: nan at index 17 of [8, 4]); outputs will be NaN or Inf
// Inputs are token ids (integers, range-checked) and config numbers (checked
// finite by ValidateConfig), so weights are the only way a NaN gets in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/weights.h"

namespace phasor {

struct NonFiniteReport {
  std::string tensor;   // the first tensor (in name order) holding one
  int64_t index = 0;    // flat index of its first non-finite value
  float value = 0;      // that value
  int64_t count = 0;    // non-finite values in that tensor
  int64_t tensors = 0;  // tensors holding at least one
};

// Scans every tensor (one pass over the data). nullopt when all are finite.
std::optional<NonFiniteReport> FindNonFinite(const Weights& weights);

// The warning text, without the "phasor: warning: " prefix, e.g.
// "m.safetensors: tensor 'w' holds 3 non-finite values (first: nan at index 17
// of [8, 4]); outputs will be NaN or Inf". Empty when all are finite.
std::string NonFiniteWarning(const Weights& weights);

}  // namespace phasor

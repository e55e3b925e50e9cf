// The sinusoidal-PE conventions of published model families: "preset" in the
// "positional" object of config.json. A preset fills layout, denominator and
// offset; keys given explicitly beside it win. scale_embedding stays its own
// key (a family's embedding scale is not part of its preset).
//
//   name           layout       denominator     first position
//   vaswani        interleaved  d_model         0
//   tensor2tensor  split        half_minus_one  0
//   whisper        split        half_minus_one  0
//   fairseq        split        half_minus_one  pad_token_id + 1
//   opennmt-tf     split        half_minus_one  1
//   marian-hf      split        d_model         0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layers/positional.h"

namespace phasor {

enum class PresetOffset {
  kZero,        // the first token at position 0
  kOne,         // at position 1
  kPadPlusOne,  // at pad_token_id + 1 (fairseq's make_positions, right padding)
};

struct PositionalPreset {
  const char* name;
  PeLayout layout;
  PeDenominator denominator;
  PresetOffset offset;
  const char* source;  // the code the convention is read from
};

// Every preset, in the order of the table above.
const std::vector<PositionalPreset>& PositionalPresets();

// The preset called name, or null.
const PositionalPreset* FindPositionalPreset(const std::string& name);

// "vaswani, tensor2tensor, ..." for messages.
std::string PositionalPresetNames();

// The position of the first token under preset p: nullopt for kPadPlusOne
// without a pad_token_id (the caller reports it unless an offset is given).
std::optional<int64_t> PresetFirstPosition(const PositionalPreset& p,
                                           std::optional<int32_t> pad_token_id);

}  // namespace phasor

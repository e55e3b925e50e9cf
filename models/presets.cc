#include "models/presets.h"

namespace phasor {

const std::vector<PositionalPreset>& PositionalPresets() {
  static const std::vector<PositionalPreset> presets = {
      {"vaswani", PeLayout::kInterleaved, PeDenominator::kDModel, PresetOffset::kZero,
       "Attention Is All You Need, section 3.5: PE(pos, 2i) = sin, PE(pos, 2i+1) = cos of "
       "pos / 10000^(2i/d_model)"},
      {"tensor2tensor", PeLayout::kSplit, PeDenominator::kHalfMinusOne, PresetOffset::kZero,
       "tensor2tensor common_attention.get_timing_signal_1d: log_timescale_increment = "
       "log(1e4) / (channels/2 - 1), concat([sin, cos]), positions from start_index 0"},
      {"whisper", PeLayout::kSplit, PeDenominator::kHalfMinusOne, PresetOffset::kZero,
       "openai/whisper model.sinusoids: log(max_timescale) / (channels // 2 - 1), "
       "cat([sin, cos]), positions arange(length)"},
      {"fairseq", PeLayout::kSplit, PeDenominator::kHalfMinusOne, PresetOffset::kPadPlusOne,
       "fairseq SinusoidalPositionalEmbedding.get_embedding: log(10000) / (half_dim - 1), "
       "cat([sin, cos]); utils.make_positions numbers tokens from padding_idx + 1"},
      {"opennmt-tf", PeLayout::kSplit, PeDenominator::kHalfMinusOne, PresetOffset::kOne,
       "OpenNMT-tf SinusoidalPositionEncoder: log(10000) / (depth / 2 - 1), concat([sin, cos]); "
       "PositionEncoder numbers positions tf.range(timesteps) + 1"},
      {"marian-hf", PeLayout::kSplit, PeDenominator::kDModel, PresetOffset::kZero,
       "Hugging Face MarianSinusoidalPositionalEmbedding: pos / 10000^(2(j//2)/dim), sin of "
       "even j in the first half, cos of odd j in the second, positions from 0"},
  };
  return presets;
}

const PositionalPreset* FindPositionalPreset(const std::string& name) {
  for (const PositionalPreset& p : PositionalPresets()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

std::string PositionalPresetNames() {
  std::string out;
  for (const PositionalPreset& p : PositionalPresets()) {
    out += (out.empty() ? "" : ", ") + std::string(p.name);
  }
  return out;
}

std::optional<int64_t> PresetFirstPosition(const PositionalPreset& p,
                                           std::optional<int32_t> pad_token_id) {
  switch (p.offset) {
    case PresetOffset::kZero:
      return 0;
    case PresetOffset::kOne:
      return 1;
    case PresetOffset::kPadPlusOne:
      if (!pad_token_id) return std::nullopt;
      return int64_t{*pad_token_id} + 1;
  }
  return std::nullopt;
}

}  // namespace phasor

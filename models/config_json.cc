// ConfigToJson: a ModelConfig as the config.json text ParseConfig reads back
// to the same values.
#include <nlohmann/json.hpp>
#include <string>

#include "models/config.h"
#include "models/config_head.h"
#include "models/config_parts.h"

namespace phasor {
namespace {

// The "scaling" object: its type and the keys that type reads.
nlohmann::ordered_json ScalingToJson(const RopeScaling& sc) {
  nlohmann::ordered_json j = {{"type", ToString(sc.type)}};
  for (const std::string& key : RopeScalingKeysOf(sc.type)) {
    if (key == "factor") j[key] = sc.factor;
    if (key == "original_max_len" && sc.original_max_len > 0) j[key] = sc.original_max_len;
    if (key == "beta_fast") j[key] = sc.beta_fast;
    if (key == "beta_slow") j[key] = sc.beta_slow;
    if (key == "attention_factor" && sc.attention_factor) j[key] = *sc.attention_factor;
    if (key == "low_freq_factor") j[key] = sc.low_freq_factor;
    if (key == "high_freq_factor") j[key] = sc.high_freq_factor;
  }
  return j;
}

}  // namespace

std::string ConfigToJson(const ModelConfig& c) {
  const PositionalConfig& p = c.positional;
  nlohmann::ordered_json positional = {{"kind", ToString(p.kind)}};
  if (p.kind == PositionalKind::kRope) {
    positional["base"] = p.base;
    positional["layout"] = ToString(p.rope_layout);
    if (p.rotary_dim > 0) positional["rotary_dim"] = p.rotary_dim;
    positional["offset"] = p.offset;
    positional["max_len"] = p.max_len;
    positional["mode"] = ToString(p.mode);
    if (p.scaling.type != RopeScalingType::kNone) positional["scaling"] = ScalingToJson(p.scaling);
  } else {
    // A preset beside its resolved values reads back the same (explicit keys win).
    if (!p.preset.empty()) positional["preset"] = p.preset;
    positional["base"] = p.base;
    positional["layout"] = ToString(p.layout);
    positional["denominator"] = ToString(p.denominator);
    positional["offset"] = p.offset;
    positional["max_len"] = p.max_len;
    positional["mode"] = ToString(p.mode);
  }
  nlohmann::ordered_json j = {
      {"vocab_size", c.vocab_size},
      {"d_model", c.d_model},
      {"n_heads", c.n_heads},
      {"n_layers", c.n_layers},
      {"d_ff", c.d_ff},
      {"activation", ToString(c.activation)},
      {"gated_ff", c.gated_ff},
      {"norm_first", c.norm_first},
      {"final_norm", c.final_norm},
      {"layer_norm_eps", c.layer_norm_eps},
      {"scale_embedding", c.scale_embedding},
      {"token_types", c.token_types},
      {"embedding_norm", c.embedding_norm},
      {"pad_token_id",
       c.pad_token_id ? nlohmann::ordered_json(*c.pad_token_id) : nlohmann::ordered_json(nullptr)},
      {"positional", positional},
  };
  if (const auto parts = LayerPartsToJson(c.parts); !parts.is_null()) j["parts"] = parts;
  const LayerBiases& b = c.bias;
  if (!(b.in_proj && b.out_proj && b.linear1 && b.linear2)) {
    j["bias"] = {{"in_proj", b.in_proj},
                 {"out_proj", b.out_proj},
                 {"linear1", b.linear1},
                 {"linear2", b.linear2}};
  }
  if (const auto head = HeadConfigToJson(c); !head.is_null()) j["head"] = head;
  return j.dump(2) + "\n";
}

}  // namespace phasor

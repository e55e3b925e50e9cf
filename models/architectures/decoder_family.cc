// What the Llama family's checkpoints share (Qwen3, Gemma 3): their prefix,
// their layer's tensor names, their rotary bases (architecture.h).
#include <algorithm>
#include <string>

#include "engine/error.h"
#include "models/architectures/architecture.h"
#include "models/architectures/checkpoint_config.h"

namespace phasor {

void SwapRowHalves(Tensor& t) {
  if (!t.bf16.empty()) {
    std::rotate(t.bf16.begin(), t.bf16.begin() + t.bf16.size() / 2, t.bf16.end());
  } else {
    std::rotate(t.data.begin(), t.data.begin() + t.data.size() / 2, t.data.end());
  }
}

std::string DecoderPrefix(const Weights& w) { return FindPrefix(w, "embed_tokens.weight"); }

void TranslateDecoderLayer(Weights& w, const std::string& pre, int64_t i, const ModelConfig& c) {
  const std::string from = pre + "layers." + std::to_string(i) + ".";
  const std::string to = "layers." + std::to_string(i) + ".";
  const int64_t d = c.d_model, dh = c.d_head(), ff = c.d_ff;
  const int64_t q_rows = c.n_heads * dh, kv_rows = c.kv_heads() * dh;
  const std::string a = from + "self_attn.";
  w.Put(to + "self_attn.in_proj_weight",
        StackRows(w, {a + "q_proj.weight", a + "k_proj.weight", a + "v_proj.weight"},
                  {{q_rows, d}, {kv_rows, d}, {kv_rows, d}}));
  MoveTensor(w, a + "o_proj.weight", to + "self_attn.out_proj.weight", {d, q_rows});
  if (c.bias.in_proj) {
    w.Put(to + "self_attn.in_proj_bias",
          StackRows(w, {a + "q_proj.bias", a + "k_proj.bias", a + "v_proj.bias"},
                    {{q_rows}, {kv_rows}, {kv_rows}}));
  }
  if (c.bias.out_proj) MoveTensor(w, a + "o_proj.bias", to + "self_attn.out_proj.bias", {d});
  if (c.parts.qk_norm) {
    MoveTensor(w, a + "q_norm.weight", to + "self_attn.q_norm.weight", {dh});
    MoveTensor(w, a + "k_norm.weight", to + "self_attn.k_norm.weight", {dh});
  }
  const std::string mlp = from + "mlp.";  // down(act(gate(x)) · up(x)): up rows, then gate
  w.Put(to + "linear1.weight",
        StackTensors(w, {mlp + "up_proj.weight", mlp + "gate_proj.weight"}, {ff, d}));
  MoveTensor(w, mlp + "down_proj.weight", to + "linear2.weight", {d, ff});
  MoveTensor(w, from + "input_layernorm.weight", to + "norm1.weight", {d});
  if (c.parts.sandwich) {
    MoveTensor(w, from + "post_attention_layernorm.weight", to + "sa_out_norm.weight", {d});
    MoveTensor(w, from + "pre_feedforward_layernorm.weight", to + "norm2.weight", {d});
    MoveTensor(w, from + "post_feedforward_layernorm.weight", to + "ff_out_norm.weight", {d});
  } else {
    MoveTensor(w, from + "post_attention_layernorm.weight", to + "norm2.weight", {d});
  }
}

int64_t KvHeads(const CheckpointConfig& cfg, int64_t n_heads) {
  const int64_t kv = cfg.Int("num_key_value_heads", 1, n_heads, n_heads);
  if (n_heads % kv != 0) {
    cfg.Fail("num_key_value_heads", std::to_string(kv) + " does not divide num_attention_heads (" +
                                        std::to_string(n_heads) + ")");
  }
  return kv;
}

double RopeTheta(const CheckpointConfig& cfg, const std::string& legacy_key,
                 const std::string& layer_type, double fallback) {
  if (cfg.Has("rope_parameters")) {
    const CheckpointConfig all = cfg.Child("rope_parameters");
    const CheckpointConfig own =
        layer_type.empty() ? cfg.Child("rope_parameters") : all.Child(layer_type);
    own.Expect("rope_type", {"default"});
    const double theta = own.Number("rope_theta", 0.0);
    if (!(theta > 1)) own.Fail("rope_theta", "expected a number > 1");
    return theta;
  }
  const double theta = cfg.Number(legacy_key, fallback);
  if (!(theta > 1)) cfg.Fail(legacy_key, "expected a number > 1");
  return theta;
}

}  // namespace phasor

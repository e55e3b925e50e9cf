#include "models/toy.h"

#include <cmath>
#include <string>

namespace phasor {
namespace {

// splitmix64: a small generator whose output is the same on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-52 - 1.0; }
  // Standard normal (Box-Muller).
  double Normal() {
    const double u1 = (static_cast<double>(Next() >> 11) + 1.0) * 0x1.0p-53;
    const double u2 = static_cast<double>(Next() >> 11) * 0x1.0p-53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

 private:
  uint64_t state_;
};

std::vector<float> Uniform(Rng& rng, int64_t n, double bound) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(bound * rng.Uniform());
  return v;
}

std::vector<float> Around(Rng& rng, int64_t n, double center, double spread) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(center + spread * rng.Uniform());
  return v;
}

}  // namespace

ModelConfig ToyConfig() {
  ModelConfig c;
  c.vocab_size = 1000;
  c.d_model = 256;
  c.n_heads = 4;
  c.n_layers = 4;
  c.d_ff = 1024;
  c.activation = Activation::kRelu;
  c.pad_token_id = 0;
  return c;
}

Weights ToyWeights(const ModelConfig& c, uint64_t seed) {
  Rng rng(seed);
  Weights w("toy model");
  const int64_t d = c.d_model, ff = c.d_ff;
  std::vector<float> emb(c.vocab_size * d);
  for (float& x : emb) x = static_cast<float>(rng.Normal());
  w.Add("embedding.weight", {c.vocab_size, d}, std::move(emb));
  const double bd = 1.0 / std::sqrt(static_cast<double>(d));
  const double bff = 1.0 / std::sqrt(static_cast<double>(ff));
  // in_proj: q of n_heads heads, k and v of kv_heads, each head_dim wide.
  const int64_t qkv = (c.n_heads + 2 * c.kv_heads()) * c.d_head(), heads = c.n_heads * c.d_head();
  const int64_t width = c.gated_ff ? 2 * ff : ff;  // linear1's outputs
  const bool norm_bias = c.parts.norm == NormKind::kLayerNorm && c.parts.norm_bias;
  auto norm = [&](const std::string& name, int64_t n) {
    w.Add(name + ".weight", {n}, Around(rng, n, c.parts.norm_weight_offset != 0 ? 0.0 : 1.0, 0.1));
    if (norm_bias) w.Add(name + ".bias", {n}, Around(rng, n, 0.0, 0.1));
  };
  for (int64_t l = 0; l < c.n_layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    w.Add(p + "self_attn.in_proj_weight", {qkv, d},
          Uniform(rng, qkv * d, std::sqrt(6.0 / (4 * d))));
    if (c.bias.in_proj) w.Add(p + "self_attn.in_proj_bias", {qkv}, Uniform(rng, qkv, 0.1));
    w.Add(p + "self_attn.out_proj.weight", {d, heads}, Uniform(rng, d * heads, bd));
    if (c.bias.out_proj) w.Add(p + "self_attn.out_proj.bias", {d}, Uniform(rng, d, 0.1));
    w.Add(p + "linear1.weight", {width, d}, Uniform(rng, width * d, bd));
    if (c.bias.linear1) w.Add(p + "linear1.bias", {width}, Uniform(rng, width, bd));
    w.Add(p + "linear2.weight", {d, ff}, Uniform(rng, d * ff, bff));
    if (c.bias.linear2) w.Add(p + "linear2.bias", {d}, Uniform(rng, d, bff));
    if (l > 0 || c.parts.first_attention_norm) norm(p + "norm1", d);
    norm(p + "norm2", d);
    if (c.parts.sandwich) {
      norm(p + "sa_out_norm", d);
      norm(p + "ff_out_norm", d);
    }
    if (c.parts.qk_norm) {
      norm(p + "self_attn.q_norm", c.d_head());
      norm(p + "self_attn.k_norm", c.d_head());
    }
  }
  if (c.final_norm) norm("norm", d);
  if (c.parts.distance_bias_radius > 0) {
    const int64_t n = c.n_heads * (2 * c.parts.distance_bias_radius + 1);
    w.Add("distance_bias.weight", {c.n_heads, 2 * c.parts.distance_bias_radius + 1},
          Uniform(rng, n, 0.5));
  }
  if (c.embedding_norm) norm("embedding_norm", d);
  if (c.token_types > 0) {
    w.Add("token_type.weight", {c.token_types, d}, Uniform(rng, c.token_types * d, 0.5));
  }
  if (c.positional.kind == PositionalKind::kLearned) {
    w.Add("positional.weight", {c.positional.max_len, d},
          Uniform(rng, c.positional.max_len * d, 0.5));
  }
  return w;
}

}  // namespace phasor

// The bytes a model's config implies (ModelBytes) and the check of them
// against the memory limit (CheckModelMemory), made before any weight is read.
#include <cstdint>
#include <string>

#include "engine/memory_limit.h"
#include "engine/size_limits.h"
#include "models/config.h"

namespace phasor {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

}  // namespace

void CheckModelMemory(const ModelConfig& c, const std::string& source) {
  CheckAllocation(ModelBytes(c), source + ": the model (vocab_size " + Str(c.vocab_size) +
                                     ", d_model " + Str(c.d_model) + ", n_layers " +
                                     Str(c.n_layers) + ", d_ff " + Str(c.d_ff) + ", max_len " +
                                     Str(c.positional.max_len) + ")");
}

uint64_t ModelBytes(const ModelConfig& c) {
  // Each term is below 2^48 after the range checks, the sum below 2^59.
  const uint64_t d = static_cast<uint64_t>(c.d_model);
  const uint64_t d_ff = static_cast<uint64_t>(c.d_ff);
  const uint64_t width = c.gated_ff ? 2 * d_ff : d_ff;  // linear1's outputs
  // in_proj [(n_heads + 2·kv_heads)·d_head, d], out_proj [d, n_heads·d_head].
  const auto qkv = static_cast<uint64_t>((c.n_heads + 2 * c.kv_heads()) * c.d_head());
  const auto heads = static_cast<uint64_t>(c.n_heads * c.d_head());
  // Biases: in_proj's qkv, out_proj's and linear2's d, linear1's width; norms 4·d.
  const uint64_t per_layer = (qkv + heads) * d + d * width + d * d_ff + qkv + 6 * d + width;
  uint64_t floats = static_cast<uint64_t>(c.vocab_size) * d +
                    static_cast<uint64_t>(c.n_layers) * per_layer + (c.final_norm ? 2 * d : 0) +
                    static_cast<uint64_t>(c.token_types) * d + (c.embedding_norm ? 2 * d : 0);
  for (const auto* products : {&c.head, &c.sentence_dense}) {
    uint64_t in = d;
    for (const DenseProduct& h : *products) {
      floats += (in + 1 + (h.norm ? 2 : 0)) * static_cast<uint64_t>(h.out);
      in = static_cast<uint64_t>(h.out);
    }
  }
  const PositionalConfig& p = c.positional;
  const uint64_t max_len = static_cast<uint64_t>(p.max_len);
  if (p.kind == PositionalKind::kLearned ||
      (p.kind == PositionalKind::kSinusoidal && p.mode != PeMode::kOnTheFly)) {
    floats += max_len * d;
  }
  if (p.kind == PositionalKind::kRope && p.mode != PeMode::kOnTheFly) {
    floats += max_len * static_cast<uint64_t>(p.RopeOptionsFor(c.d_head()).r());
  }
  return SaturatingMul(floats, sizeof(float));
}

}  // namespace phasor

// The number format of the encoder's weight products (every nn.Linear: the
// attention projections and the feed-forward layers), chosen at load.
//
//   fp32  float32 weights and inputs (the default; matches PyTorch to 1e-4)
//   bf16  weights and each product's inputs rounded to bfloat16, float32 sums
//   int8  weights quantized at load, symmetric, one scale per output channel;
//         inputs quantized per token just before each product; int32 sums
//
// bf16 and int8 also take attention's two products (q·kᵀ, weights·v) in
// bfloat16 for sequences of 32 keys or more, int8 its q·kᵀ in int8 (queries
// and keys quantized per row; layers/attention.h). Embedding,
// PE, the softmax's statistics, LayerNorm and the residuals stay float32 in
// every precision. engine/kernels/gemm_bf16.h, gemm_int8.h and
// attention_bf16.h define the products exactly.
#pragma once

#include <string>

namespace phasor {

enum class Precision { kFp32, kBf16, kInt8 };

// "fp32", "bf16", "int8"; anything else throws Error naming the three.
Precision ParsePrecision(const std::string& s);
const char* ToString(Precision v);

}  // namespace phasor

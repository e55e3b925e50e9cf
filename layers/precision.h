// The number format of the encoder's weight products (every nn.Linear: the
// attention projections and the feed-forward layers), chosen at load.
//
//   fp32  float32 weights and inputs (the default; matches PyTorch to 1e-4)
//   bf16  weights and each product's inputs rounded to bfloat16, float32 sums
//   int8  weights quantized at load, symmetric, one scale per output channel;
//         inputs quantized per token just before each product; int32 sums
//
// Embedding, PE, attention's softmax and its two products (q·kᵀ, weights·v),
// LayerNorm and the residuals stay float32 in every precision.
// engine/kernels/gemm_bf16.h and gemm_int8.h define the products exactly.
#pragma once

#include <string>

namespace phasor {

enum class Precision { kFp32, kBf16, kInt8 };

// "fp32", "bf16", "int8"; anything else throws Error naming the three.
Precision ParsePrecision(const std::string& s);
const char* ToString(Precision v);

}  // namespace phasor

// Safetensors files (https://github.com/huggingface/safetensors): the weights of
// a model directory.
//
// Layout: 8 bytes, a little-endian u64 N; N bytes of JSON header; the data
// section. The header maps each tensor name to
//   {"dtype": "F32" | "F16" | "BF16", "shape": [d0, d1, ...], "data_offsets": [begin, end]}
// with byte offsets relative to the start of the data section, plus an optional
// "__metadata__" object of string values (read, checked and dropped). Data is
// little-endian, row-major.
//
// Example, one F32 tensor of shape [2] (a 54-byte header padded to 56):
//   56 as u64 | {"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}+2 spaces | 8 bytes
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/weights.h"

namespace phasor {

class OutputFile;  // engine/output_file.h

// Limits on what LoadSafetensors accepts. The header cap is the reference
// implementation's; the element cap keeps sizes far from int64 overflow.
inline constexpr uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;
inline constexpr int64_t kSafetensorsMaxElements = int64_t{1} << 40;

// Reads a whole safetensors file into Weights (source = path). F16 tensors are
// converted to float32; BF16 ones are kept as stored (Tensor::bf16) and
// converted where a layer needs float32 (engine/bfloat16.h). The file is read with ordinary reads,
// never mapped: a file that changes while (or after) it is read cannot crash us.
//
// Throws Error naming path (and the tensor where there is one), saying what was
// expected and what was found, for: a file that is missing, a directory, not a
// regular file (a FIFO would block) or unreadable; fewer than 8 bytes; a
// header length of 0, past the end of the file, or over
// kSafetensorsMaxHeaderBytes; a header that is not a JSON object or repeats a
// key; an entry that is not an object with exactly the fields dtype (string),
// shape (array of non-negative integers) and data_offsets (two non-negative
// integers, begin <= end); an unknown dtype; more than kSafetensorsMaxElements
// elements (checked before any multiplication overflows); data past the end of
// the data section; a byte span that is not elements * dtype size; two tensors
// whose bytes overlap; a "__metadata__" that is not an object of strings; a
// file that shrinks while it is read; tensors whose float32 total exceeds the
// memory limit (engine/memory_limit.h), checked after the header is validated
// and before any tensor is allocated.
// Gaps between tensors and bytes after the last one are allowed. I64 tensors
// named like Hugging Face's index buffers (…position_ids, …token_type_ids)
// are checked as any other and left out: they are not weights; left_out, if
// given, receives their names (a shard index lists them: models/architectures).
Weights LoadSafetensors(const std::string& path, std::vector<std::string>* left_out = nullptr);

// Whether name is one of Hugging Face's integer index buffers (…position_ids,
// …token_type_ids), which LoadSafetensors checks and leaves out.
bool IsIndexBuffer(const std::string& name);

// Writes every tensor of weights as F32, names in sorted order, data packed in
// that order, the header padded with spaces to a multiple of 8 bytes (as the
// reference implementation does). Throws Error naming path if it cannot be
// written (engine/output_file.h: nothing is left under path then) or a name is not valid UTF-8.
void SaveSafetensors(const std::string& path, const Weights& weights);

// The same bytes into out, not yet committed (to commit it together with
// other files, engine/output_file.h CommitTogether).
void WriteSafetensors(OutputFile& out, const Weights& weights);

}  // namespace phasor

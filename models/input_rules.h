// What makes encoder input valid (trailing pad ids, empty and all-pad
// sequences, the length limit and its cut), shared by the C++ API
// (models/phasor.h), the CLI, the Python module and the Dask tools; README
// "Valid input" says the same in words.
//
//   - An input holds at least one sequence: an empty one is refused.
//   - A sequence's real tokens are its tokens less its trailing pad ids (with a
//     pad_token_id in the config): those are padding, masked out of attention
//     and absent from the output (0 in a padded array).
//   - A sequence with no real token (empty, or pad ids only) is refused: there
//     is nothing to encode, and a row of zeros would pass for a result.
//   - Trailing pad ids inside the tokens a caller gave as real (a line of a
//     file, a list item, a sequence's given length) are still padding, with
//     one warning for the whole input.
//   - A sequence holds at most the positions the model has (a learned or
//     cached table past its first position): a longer one is refused naming
//     it and the limit, or with truncate keeps its first tokens (one warning).
//   - Ids lie in [0, vocab_size), positions within what the PE or RoPE can
//     produce, and a batch within the limits of one call (engine/size_limits.h):
//     the encoder checks those (Encoder::CheckInput, and ForwardPacked before it
//     computes anything).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/parallel.h"
#include "layers/spans.h"

namespace phasor {

struct RealTokens {
  std::vector<int64_t> lengths;  // [batch] real tokens of each sequence
  int64_t total = 0;             // their sum
  std::string warning;           // empty, or lines about trailing pad ids, truncation
};

struct SequenceRules {
  std::optional<int32_t> pad_id;  // the config's pad_token_id
  // Whether the given tokens of a sequence were meant as real (a file's line,
  // a list item, an explicit length), so that trailing pad ids in them deserve
  // a warning; false for a padded array whose padding is the pad id.
  bool warn_trailing_pads = true;
  // The output has padded rows (made 0) rather than none.
  bool padded_output = true;
  // What a sequence is called in the warning's count: "line" for a file.
  std::string unit = "sequence";
  // The most real tokens a sequence may hold (Encoder::MaxSequenceLength);
  // 0: no limit. truncate: a longer one keeps its first max_length.
  int64_t max_length = 0;
  std::string max_length_of =
      "the model";  // whose positions: "the model's learned table (max_len 512)"
  bool truncate = false;
};

// ids: sequence b is ids[given.start[b] .. given.start[b] + given.length[b]),
// given.batch sequences (given.keys unused). input: the whole
// input in messages ("tokens.txt", "ids"); name(b): sequence b in messages
// ("tokens.txt: line 5", "sequence 3"). Throws Error for no sequence or a
// sequence with no real token.
RealTokens ResolveRealTokens(const int32_t* ids, const Spans& given, const SequenceRules& rules,
                             const std::string& input, FunctionRef<std::string(int64_t)> name);

// The limits of one call (engine/size_limits.h), for every front end: `rows`
// sequences of `cols` tokens (or 1 x the tokens of a packed batch), whose
// output holds a row of d values per token, or per sequence when pooled:
// whether they fit, checked without overflow. The message of a call that does
// not: "<what> is too large for one call (at most 2^26 tokens and 2^31 output
// values)".
bool FitsOneCall(int64_t rows, int64_t cols, int64_t d, bool pooled);
std::string TooLargeForOneCall(const std::string& what);

// Packed offsets ([batch + 1], FlashAttention's cu_seqlens): Error unless
// offsets[0] is 0 and none decreases, naming the first that does.
void CheckOffsets(const int64_t* offsets, int64_t batch);

}  // namespace phasor

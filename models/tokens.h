// Token ids as users write them: one sequence a line, ids separated by spaces
// or commas. Lines are kept packed, back to back; the padded form is made on
// request.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace phasor {

struct TokenBatch {
  int64_t batch = 0;
  int64_t seq = 0;               // the longest line
  std::vector<int32_t> ids;      // [offsets[batch]] every line's ids, back to back
  std::vector<int64_t> offsets;  // [batch + 1] line i is ids[offsets[i] .. offsets[i + 1])
  std::vector<int64_t> lengths;  // [batch] tokens of each line
  std::vector<int64_t> lines;    // [batch] line of the text each sequence came from (from 1)

  // [batch, seq]: each line padded to the longest with pad. Throws Error if
  // that is past the memory limit (engine/memory_limit.h).
  std::vector<int32_t> Padded(int32_t pad) const;
};

// Parses text (blank lines are skipped). source names the input in messages,
// e.g. "tokens.txt" or "--tokens". Throws Error naming the line and token for
// anything that is not an integer in int32 range, for no sequence at all, and
// for ragged lines when pad_id is empty. Range checks against the vocabulary
// are the embedding's.
TokenBatch ParseTokens(const std::string& text, const std::string& source,
                       std::optional<int32_t> pad_id);

// Reads and parses a tokens file; Error (with the system's reason) if it
// cannot be read.
TokenBatch LoadTokens(const std::string& path, std::optional<int32_t> pad_id);

// Throws Error for the first id outside [0, vocab), naming it as ParseTokens
// names tokens: "source: line L, token T: token id 1000 is outside the
// vocabulary [0, 20)".
void CheckTokenIds(const TokenBatch& b, int64_t vocab, const std::string& source);

// The tokens of each sequence that the encoder encodes: its length less the
// trailing pad ids, which Encoder::Forward masks as padding. [batch]
std::vector<int64_t> RealLengths(const TokenBatch& b, std::optional<int32_t> pad_id);

}  // namespace phasor

// Token ids as users write them: one sequence a line, ids separated by spaces
// or commas. Ragged lines are padded to the longest with the pad id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace phasor {

struct TokenBatch {
  int64_t batch = 0;
  int64_t seq = 0;               // the longest line
  std::vector<int32_t> ids;      // [batch, seq], short lines padded with the pad id
  std::vector<int64_t> lengths;  // [batch] tokens before padding
};

// Parses text (blank lines are skipped). source names the input in messages,
// e.g. "tokens.txt" or "--tokens". Throws Error naming the line and token for
// anything that is not an integer in int32 range, for no sequence at all, and
// for ragged lines when pad_id is empty. Range checks against the vocabulary
// are the embedding's.
TokenBatch ParseTokens(const std::string& text, const std::string& source,
                       std::optional<int32_t> pad_id);

// Reads and parses a tokens file; Error if it cannot be read.
TokenBatch LoadTokens(const std::string& path, std::optional<int32_t> pad_id);

}  // namespace phasor

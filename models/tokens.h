// Token ids as users write them: one sequence a line, ids separated by spaces
// or commas. Lines are kept packed, back to back; the padded form is made on
// request. For a model with token types (BERT's segments), a tab marks where
// a line's segment 1 begins, as in "101 7 8 102<TAB>9 10 102" (a pair of
// texts); otherwise a tab is white space like any other.
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
  // [offsets[batch]] each id's token type (0, or 1 after a line's tab); empty
  // when no line holds a pair: every token is of type 0.
  std::vector<int32_t> types;

  // [batch, seq]: each line padded to the longest with pad. Throws Error if
  // that is past the memory limit (engine/memory_limit.h).
  std::vector<int32_t> Padded(int32_t pad) const;
  // [batch, seq]: types laid out as Padded lays out ids, padding of type 0;
  // empty when types is.
  std::vector<int32_t> PaddedTypes() const;
};

// Parses text (blank lines are skipped). source names the input in messages,
// e.g. "tokens.txt" or "--tokens". pairs: a tab marks segment 1 (the model has
// token types); else it separates ids as a space does. Throws Error naming the
// line and token for anything that is not an integer in int32 range, naming
// the line for a second tab (three segments) when pairs, and for no sequence
// at all. Lines may have any lengths: each is a sequence of its own length,
// and no pad id is needed for that. Range checks against the vocabulary are
// the embedding's.
TokenBatch ParseTokens(const std::string& text, const std::string& source, bool pairs = false);

// Reads and parses a tokens file ("-": standard input, named so in
// messages; a pipe such as /dev/stdin reads as a file); Error (with the
// system's reason) if it cannot be read.
TokenBatch LoadTokens(const std::string& path, bool pairs = false);

// Throws Error for the first id outside [0, vocab), naming it as ParseTokens
// names tokens: "source: line L, token T: token id 1000 is outside the
// vocabulary [0, 20)".
void CheckTokenIds(const TokenBatch& b, int64_t vocab, const std::string& source);

}  // namespace phasor

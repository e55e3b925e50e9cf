// A text's ids as a tokenizer gives them (the Rust library's Encoding): its
// own header, so that the post-processor, which builds one, needs nothing of
// the tokenizer above it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace phasor::tokenizers {

struct Encoding {
  std::vector<int32_t> ids;
  std::vector<int32_t> types;  // [ids.size()] each id's token type
  // For a pair: the index of the first id of the second text's part (its
  // first token of type 1 where the template gives types, as BERT's does);
  // -1 for a single text.
  int64_t pair_start = -1;
  // When TokenizeOptions::offsets asks for them, else empty: each id's
  // [begin, end) in its own text (the second text's for the ids of a pair's
  // second part), in the unit asked, as the Rust library's Encoding offsets;
  // (0, 0) for a special token the post-processor adds. special: [ids.size()]
  // 1 for those (the library's special_tokens_mask), 0 for the rest (an
  // added token written in the text included).
  std::vector<std::pair<int64_t, int64_t>> offsets;
  std::vector<uint8_t> special;
};

}  // namespace phasor::tokenizers

#include "tokenizers/pieces.h"

#include <algorithm>

namespace phasor::tokenizers {

void Pieces::Reset(std::string_view text, bool at_text_start, const Span* align) {
  bytes_.assign(text);
  aligned_ = align != nullptr;
  spans_.clear();
  if (aligned_) spans_.assign(align, align + text.size());
  refs_.clear();
  if (!text.empty()) refs_.push_back(Ref{0, text.size(), at_text_start});
}

void Pieces::Reserve(size_t more) {
  room_ = bytes_.size() + more;
  bytes_.reserve(room_);
  if (aligned_) spans_.reserve(spans_.size() + more);
}

void Pieces::DropEmpty() {
  refs_.erase(
      std::remove_if(refs_.begin(), refs_.end(), [](const Ref& r) { return r.begin == r.end; }),
      refs_.end());
}

}  // namespace phasor::tokenizers

#include "tokenizers/aligned_text.h"

#include "tokenizers/utf8.h"

namespace phasor::tokenizers {

void AlignedText::Reset(std::string_view original, size_t original_shift) {
  text.assign(original);
  align.resize(original.size());
  shift = original_shift;
  for (size_t i = 0; i < original.size();) {
    const size_t n = SequenceLength(static_cast<unsigned char>(original[i]));
    for (size_t k = 0; k < n; ++k) align[i + k] = {shift + i, shift + i + n};
    i += n;
  }
}

void AlignedText::SliceOf(const AlignedText& from, size_t b, size_t e) {
  text.assign(from.text, b, e - b);
  align.assign(from.align.begin() + static_cast<std::ptrdiff_t>(b),
               from.align.begin() + static_cast<std::ptrdiff_t>(e));
  shift = b < e ? from.align[b].first : from.shift;
}

void Transform(AlignedText& t, const std::vector<CharChange>& changes, size_t initial_offset) {
  thread_local std::string text;
  thread_local std::vector<Span> align;
  text.clear();
  align.clear();
  // offset: the byte of the old text the next replacing character takes.
  size_t offset = 0;
  auto skip_old = [&](size_t n) {  // moves offset past n old characters
    for (size_t k = 0; k < n && offset < t.text.size(); ++k)
      offset += SequenceLength(static_cast<unsigned char>(t.text[offset]));
  };
  skip_old(initial_offset);
  for (const CharChange& ch : changes) {
    Span span;
    if (ch.change > 0) {
      span = offset < 1 ? Span{t.shift, t.shift} : t.align[offset - 1];
    } else {
      span = offset < t.align.size() ? t.align[offset] : Span{t.shift, t.shift};
      skip_old(1);
      if (ch.change < 0) skip_old(static_cast<size_t>(-ch.change));
    }
    const size_t before = text.size();
    AppendUtf8(text, ch.c);
    align.insert(align.end(), text.size() - before, span);
  }
  t.text.swap(text);
  t.align.swap(align);
}

Span ToOriginal(const AlignedText& t, size_t b, size_t e) {
  if (b >= e || e > t.align.size()) return {b, e};
  return {t.align[b].first, t.align[e - 1].second};
}

}  // namespace phasor::tokenizers

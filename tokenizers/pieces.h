// The pieces of one text while a pre-tokenizer cuts and rewrites it: views
// into one byte buffer, so that a cut copies no text. A rewrite (ByteLevel's
// bytes as characters, Metaspace's replacement) appends the new text to the
// buffer and points its piece there. On the offsets path every byte of the
// buffer also carries its span in the original text (aligned_text.h), kept
// through every cut and rewrite. The buffers are kept from text to text: a
// thread's Pieces allocates nothing once they have grown.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/error.h"
#include "tokenizers/aligned_text.h"

namespace phasor::tokenizers {

class Pieces {
 public:
  struct Ref {
    size_t begin, end;  // in bytes()
    // The piece begins where the whole input text begins (what Metaspace's
    // prepend_scheme "first" asks); only the first part of a cut piece keeps it.
    bool at_text_start;
  };

  // One piece, text; align: [text.size()] each byte's span, or null for the
  // ids-only path.
  void Reset(std::string_view text, bool at_text_start, const Span* align);

  size_t size() const { return refs_.size(); }
  const Ref& ref(size_t i) const { return refs_[i]; }
  std::string_view text(size_t i) const {
    return std::string_view(bytes_).substr(refs_[i].begin, refs_[i].end - refs_[i].begin);
  }
  bool aligned() const { return aligned_; }
  // [text(i).size()] piece i's bytes' spans; only when aligned().
  const Span* align(size_t i) const { return aligned_ ? spans_.data() + refs_[i].begin : nullptr; }

  // Cutting: the new refs are built in next() (cleared by StartCut) from
  // parts of the current ones, then Commit makes them the pieces.
  std::vector<Ref>& StartCut() {
    next_.clear();
    return next_;
  }
  void CommitCut() { refs_.swap(next_); }

  // Rewriting piece i: Append its new bytes (each with the span given, when
  // aligned), then EndRewrite(i, begin) with begin = the Mark() taken first.
  // At most reserve more bytes are appended before the next Reserve: the
  // buffer does not move while a rewrite reads a piece's old bytes.
  void Reserve(size_t more);
  size_t Mark() const { return bytes_.size(); }
  void Append(std::string_view s, Span span) {
    CheckRoom(s.size());
    bytes_.append(s);
    if (aligned_) spans_.insert(spans_.end(), s.size(), span);
  }
  // s with its spans align[0, s.size()) (null when not aligned).
  // (s and align may be a piece of this buffer: the room Reserve made
  // keeps them in place.)
  void AppendCopy(std::string_view s, const Span* align) {
    CheckRoom(s.size());
    bytes_.append(s);
    if (aligned_)
      for (size_t k = 0; k < s.size(); ++k) spans_.push_back(align[k]);
  }
  void AppendByte(char c, Span span) {
    CheckRoom(1);
    bytes_.push_back(c);
    if (aligned_) spans_.push_back(span);
  }
  // n new bytes to write (their spans, when aligned, left to AppendSpans).
  char* Grow(size_t n) {
    CheckRoom(n);
    bytes_.resize(bytes_.size() + n);
    return bytes_.data() + bytes_.size() - n;
  }
  // n spans of the bytes Grow made, when aligned.
  void AppendSpans(size_t n, Span span) {
    if (aligned_) spans_.insert(spans_.end(), n, span);
  }
  void EndRewrite(size_t i, size_t begin) {
    refs_[i].begin = begin;
    refs_[i].end = bytes_.size();
  }
  // Drops the empty pieces.
  void DropEmpty();
  // The whole buffer (for the spans of a piece, ref(i) into it).
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
  std::vector<Span> spans_;  // [bytes_.size()] when aligned_
  std::vector<Ref> refs_, next_;
  bool aligned_ = false;
  size_t room_ = 0;  // the buffer's size the last Reserve made room for

  // A rewrite that would outgrow the room Reserve made (so move the buffer
  // under the views it reads) is a bug: refused, never run.
  void CheckRoom(size_t n) const {
    if (bytes_.size() + n > room_) throw Error("pieces: a rewrite outgrew its reserved room");
  }
};

}  // namespace phasor::tokenizers

#include "tokenizers/added_tokens.h"

#include <algorithm>
#include <utility>

#include "tokenizers/unicode.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

// The code point that ends text (valid UTF-8, not empty).
char32_t LastCodePoint(std::string_view text) {
  size_t i = text.size() - 1;
  while (i > 0 && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) --i;
  return NextCodePoint(text, i);
}

// A word character as the library's single_word test sees it: the regex
// crate's \w (added_vocabulary.rs, ^\w and \w$): Alphabetic, M, Nd, Pc,
// Join_Control; not No (a superscript two is no word character).
bool IsWordChar(char32_t c) {
  if (c < 0x80) return c == U'_' || unicode::IsLetter(c) || unicode::IsNumber(c);
  return unicode::IsRegexCrateWord(c);
}

bool IsSpace(char32_t c) { return unicode::IsWhiteSpace(c); }

}  // namespace

AddedTokens::AddedTokens(std::vector<AddedToken> tokens) : tokens_(std::move(tokens)) {
  for (size_t t = 0; t < tokens_.size(); ++t) {
    if (tokens_[t].content.empty()) continue;
    Insert(tokens_[t].normalized ? normalized_ : raw_, static_cast<int32_t>(t));
  }
}

void AddedTokens::Insert(Trie& trie, int32_t token) {
  const std::string& s = tokens_[static_cast<size_t>(token)].content;
  trie.first_byte[static_cast<unsigned char>(s[0])] = true;
  size_t node = 0;
  for (const char ch : s) {
    const auto b = static_cast<unsigned char>(ch);
    auto& next = trie.nodes[node].next;
    auto it = std::lower_bound(next.begin(), next.end(), std::make_pair(b, int32_t{-1}));
    if (it != next.end() && it->first == b) {
      node = static_cast<size_t>(it->second);
    } else {
      const auto child = static_cast<int32_t>(trie.nodes.size());
      next.insert(it, {b, child});
      trie.nodes.emplace_back();
      node = static_cast<size_t>(child);
    }
  }
  // Two entries with the same content: the first listed keeps it.
  if (trie.nodes[node].token < 0) trie.nodes[node].token = token;
}

int32_t AddedTokens::LongestAt(const Trie& trie, std::string_view text, size_t i,
                               size_t& len) const {
  int32_t best = -1;
  size_t node = 0;
  for (size_t k = i; k < text.size(); ++k) {
    const auto b = static_cast<unsigned char>(text[k]);
    const auto& next = trie.nodes[node].next;
    auto it = std::lower_bound(next.begin(), next.end(), std::make_pair(b, int32_t{-1}));
    if (it == next.end() || it->first != b) break;
    node = static_cast<size_t>(it->second);
    if (trie.nodes[node].token >= 0) {
      best = trie.nodes[node].token;
      len = k + 1 - i;
    }
  }
  return best;
}

void AddedTokens::Split(std::string_view text, bool raw, std::vector<TextSplit>& out) const {
  const Trie& trie = raw ? raw_ : normalized_;
  out.clear();
  size_t start_offset = 0;  // the end of the last token taken
  size_t i = 0;
  while (i < text.size()) {
    if (!trie.first_byte[static_cast<unsigned char>(text[i])]) {
      ++i;
      continue;
    }
    size_t len = 0;
    const int32_t t = LongestAt(trie, text, i, len);
    if (t < 0) {
      ++i;
      continue;
    }
    const AddedToken& token = tokens_[static_cast<size_t>(t)];
    size_t start = i, stop = i + len;
    // Matches do not overlap: the search goes on after this one whether it
    // is taken or not, as the library's leftmost-longest iteration does.
    i = stop;
    if (token.single_word) {
      const bool word_before = start > 0 && IsWordChar(LastCodePoint(text.substr(0, start)));
      size_t j = stop;
      const bool word_after = stop < text.size() && IsWordChar(NextCodePoint(text, j));
      if (word_before || word_after) continue;
    }
    if (token.lstrip) {
      size_t s = start;
      while (s > 0) {
        size_t p = s - 1;
        while (p > 0 && (static_cast<unsigned char>(text[p]) & 0xC0) == 0x80) --p;
        size_t q = p;
        if (!IsSpace(NextCodePoint(text, q))) break;
        s = p;
      }
      // Spaces already taken by the previous match stay with it.
      start = std::max(s, start_offset);
    }
    if (token.rstrip) {
      while (stop < text.size()) {
        size_t q = stop;
        if (!IsSpace(NextCodePoint(text, q))) break;
        stop = q;
      }
    }
    if (start_offset < start) out.push_back({start_offset, start, -1});
    out.push_back({start, stop, token.id});
    start_offset = stop;
  }
  if (start_offset < text.size()) out.push_back({start_offset, text.size(), -1});
}

}  // namespace phasor::tokenizers

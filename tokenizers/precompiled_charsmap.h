// SentencePiece's precompiled_charsmap (the normalizer_spec of a .model file,
// base64 in tokenizer.json's Precompiled normalizer), applied exactly as the
// Rust crate spm_precompiled and tokenizers' precompiled.rs apply it.
//
// The charsmap is [u32 LE trie_bytes][trie: trie_bytes/4 u32 LE units, a
// darts-clone double array over UTF-8 bytes][replacements: NUL-terminated
// UTF-8 strings that the trie's values index]. The text is walked by extended
// grapheme clusters (ICU's character BreakIterator): a cluster under 6 bytes
// whose bytes begin with a key becomes the replacement of the *shortest* such
// key (the crate takes the first result of a common-prefix search, dropping
// the rest of the cluster; SentencePiece itself takes the longest match);
// otherwise each code point of the cluster is looked up alone, and one that
// is no key stays as it is.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace phasor::tokenizers {

struct AlignedText;  // aligned_text.h
struct CharChange;

// Whether the code point at byte i of text (valid UTF-8) is a grapheme
// cluster of its own by its class and the next one's alone (Other, not
// followed by Extend, ZWJ or SpacingMark), and then where it ends (end).
// false: ICU's iterator must decide.
bool AloneInItsCluster(std::string_view text, size_t i, size_t& end);

class PrecompiledCharsmap {
 public:
  // bytes: the raw charsmap. Throws Error naming where if it is too short for
  // its trie, has no trie, or its replacements are not valid UTF-8 (the
  // crate refuses the same).
  PrecompiledCharsmap(const std::string& bytes, const std::string& where);

  // text (valid UTF-8) normalized. Throws Error naming where if the trie
  // points outside itself or its replacements (a corrupt charsmap; the crate
  // panics there).
  std::string Apply(std::string_view text) const;
  // The same on aligned text, each replacement's characters taking spans as
  // the crate's precompiled.rs hands them to NormalizedString::transform.
  void ApplyAligned(AlignedText& t) const;

  // The replacement of the shortest key that is a prefix of key's bytes (the
  // walk stops at a NUL byte), or nullopt: spm_precompiled's transform().
  std::optional<std::string_view> Transform(std::string_view key) const;

 private:
  void AppendCluster(std::string_view cluster, std::string& out) const;
  // What the crate's normalize() pushes for one cluster; true if it replaced.
  bool ClusterChanges(std::string_view cluster, std::vector<CharChange>& changes) const;
  uint32_t Unit(size_t pos) const;

  std::vector<uint32_t> trie_;
  std::string replacements_;
  // Transform() of each single ASCII byte, worked out once: most clusters
  // of most text are one ASCII byte.
  std::array<std::optional<std::string>, 128> ascii_;
  std::string where_;
};

}  // namespace phasor::tokenizers

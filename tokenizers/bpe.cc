// BPE (GPT-2, RoBERTa, Llama-style SentencePiece BPE exported to
// tokenizer.json), as tokenizers/src/models/bpe/{model,word}.rs:
//  1. each code point of the piece becomes a symbol: its vocabulary id
//     (continuing_subword_prefix before every code point but the first,
//     end_of_word_suffix after the last), else its "<0xAB>" byte pieces
//     (byte_fallback), else the unknown token (consecutive ones fused into one
//     when fuse_unk), else nothing;
//  2. merges apply by rank, lowest first, the leftmost on equal ranks: by
//     scans on short words, from one priority queue on long ones (each merge
//     only changes its two neighbours' pairs).
// Whole pieces are cached, so a repeated word costs one lookup (and the
// tokenizer keeps each thread's recent pieces in front: recent_pieces.h).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/aligned_allocator.h"
#include "engine/error.h"
#include "tokenizers/json_reader.h"
#include "tokenizers/merge_queue.h"
#include "tokenizers/model.h"
#include "tokenizers/model_spec.h"
#include "tokenizers/model_vocab.h"
#include "tokenizers/piece_cache.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

// (left id, right id) -> (rank, id of the merged token): open addressing,
// linear probing, on the hot path of every merge step.
class MergeTable {
 public:
  struct Rule {
    int32_t rank;
    int32_t new_id;
  };

  // Room for n rules, in huge pages where the kernel gives them (the table is
  // megabytes, probed at random: fewer page faults at load, TLB misses after).
  void Reserve(size_t n) {
    size_t capacity = 16;
    while (capacity < 2 * n) capacity *= 2;
    slots_.assign(capacity, Slot{kEmpty, {0, 0}});
    mask_ = capacity - 1;
  }
  // A later rule for the same pair replaces the earlier one, as the library's
  // HashMap collect does.
  void Set(int32_t left, int32_t right, Rule rule) {
    Slot& slot = Probe(Key(left, right));
    slot.key = Key(left, right);
    slot.rule = rule;
  }
  const Rule* Find(int32_t left, int32_t right) const {
    const Slot& slot = const_cast<MergeTable*>(this)->Probe(Key(left, right));
    return slot.key == kEmpty ? nullptr : &slot.rule;
  }

 private:
  // Every pair's key has its top bit set (ids are below 2^31), so a zeroed
  // slot is empty: filling the table is one memset.
  static constexpr uint64_t kEmpty = 0;
  struct Slot {
    uint64_t key;
    Rule rule;
  };
  static uint64_t Key(int32_t left, int32_t right) {
    return (uint64_t{1} << 63) | (uint64_t(uint32_t(left)) << 32) | uint32_t(right);
  }
  Slot& Probe(uint64_t key) {
    size_t i = size_t((key * 0x9E3779B97F4A7C15ull) >> 20) & mask_;
    while (slots_[i].key != kEmpty && slots_[i].key != key) i = (i + 1) & mask_;
    return slots_[i];
  }

  std::vector<Slot, AlignedAllocator<Slot>> slots_;
  size_t mask_ = 0;
};

struct BpeOptions {
  std::optional<int32_t> unk_id;
  std::string prefix;  // continuing_subword_prefix, "" for none
  std::string suffix;  // end_of_word_suffix, "" for none
  bool fuse_unk = false;
  bool byte_fallback = false;
  bool ignore_merges = false;
};

class Bpe final : public Model {
 public:
  Bpe(TokenTable vocab, MergeTable merges, BpeOptions options)
      : vocab_(std::move(vocab)),
        merges_(std::move(merges)),
        options_(std::move(options)),
        cache_(10000) {
    // Code points below U+0800 (one or two UTF-8 bytes: every character of a
    // byte-level vocabulary) are found by index, not by hashing.
    std::string text;
    for (char32_t c = 0; c < kDirect; ++c) {
      text.clear();
      AppendUtf8(text, c);
      direct_ids_[c] = vocab_.Find(text).value_or(-1);
    }
    for (int b = 0; b < 256; ++b) {
      byte_ids_[b] = vocab_.Find(BytePiece(static_cast<unsigned char>(b))).value_or(-1);
    }
  }

  void Tokenize(std::string_view piece, std::vector<int32_t>& ids) const override {
    if (piece.empty()) return;
    if (options_.ignore_merges) {
      if (const auto id = vocab_.Find(piece)) {
        ids.push_back(*id);
        return;
      }
    }
    const bool cacheable = piece.size() < PieceCache::kMaxPieceBytes;
    size_t hash = 0;
    if (cacheable) {
      hash = std::hash<std::string_view>()(piece);
      if (cache_.Get(piece, hash, ids)) return;
    }
    const size_t first = ids.size();
    MergeWord(piece, ids);
    if (cacheable) cache_.Put(piece, hash, ids.data() + first, ids.size() - first);
  }

  // Not cached: the cache keeps ids only.
  void TokenizeWithOffsets(std::string_view piece, std::vector<int32_t>& ids,
                           std::vector<Span>& spans) const override {
    if (piece.empty()) return;
    if (options_.ignore_merges) {
      if (const auto id = vocab_.Find(piece)) {
        ids.push_back(*id);
        spans.emplace_back(0, piece.size());
        return;
      }
    }
    MergeWord(piece, ids, &spans);
  }
  std::string_view IdToToken(int32_t id) const override { return vocab_.TokenOf(id); }

  std::optional<int32_t> TokenToId(std::string_view token) const override {
    return vocab_.Find(token);
  }
  int32_t VocabSize() const override { return vocab_.IdBound(); }

 private:
  static constexpr char32_t kDirect = 0x800;

  struct Symbol {
    int32_t id;
    int32_t prev;  // index of the symbol before, -1 at the start
    int32_t next;  // index of the symbol after, -1 at the end
    int32_t len;   // bytes of the piece it covers; 0 once merged into its left
  };
  // A queued merge: its rule's rank in the high half, the index of its left
  // symbol in the low half, so that the smallest key is the merge to apply
  // next (the lowest rank, then the leftmost). A rank names one rule: each
  // pair has one rule, each rule its own rank.
  using Candidate = uint64_t;
  static Candidate Key(int32_t rank, int32_t pos) {
    return (uint64_t(uint32_t(rank)) << 32) | uint32_t(pos);
  }

  // The vocabulary id of the symbol for code point text[i, i + len).
  std::optional<int32_t> SymbolId(std::string_view piece, size_t i, size_t len,
                                  std::string& scratch) const {
    const bool prefixed = i > 0 && !options_.prefix.empty();
    const bool suffixed = i + len == piece.size() && !options_.suffix.empty();
    if (!prefixed && !suffixed) {
      if (len <= 2) {
        size_t k = i;
        const int32_t id = direct_ids_[NextCodePoint(piece, k)];
        if (id < 0) return std::nullopt;
        return id;
      }
      return vocab_.Find(piece.substr(i, len));
    }
    scratch.clear();
    if (prefixed) scratch += options_.prefix;
    scratch.append(piece.substr(i, len));
    if (suffixed) scratch += options_.suffix;
    return vocab_.Find(scratch);
  }

  // spans, when given, takes each id's bytes of piece: the symbols' lengths
  // one after another, as the library's Word gives its offsets.
  void MergeWord(std::string_view piece, std::vector<int32_t>& ids,
                 std::vector<Span>* spans = nullptr) const {
    thread_local std::vector<Symbol> symbols;
    thread_local std::string scratch;
    symbols.clear();
    auto add = [&](int32_t id, int32_t len) {
      const auto index = static_cast<int32_t>(symbols.size());
      if (index > 0) symbols.back().next = index;
      symbols.push_back(Symbol{id, index - 1, -1, len});
    };

    // Bytes of an unknown token waiting for the symbol after it (to fuse
    // with it), 0 for none. As in the library, byte fallback pieces do not
    // flush it: they go in before it.
    int32_t pending_unk_len = 0;
    for (size_t i = 0; i < piece.size();) {
      const size_t len = SequenceLength(static_cast<unsigned char>(piece[i]));
      if (const auto id = SymbolId(piece, i, len, scratch)) {
        if (pending_unk_len > 0) add(*options_.unk_id, pending_unk_len);
        pending_unk_len = 0;
        add(*id, static_cast<int32_t>(len));
      } else if (!AddByteFallback(piece, i, len, scratch, add)) {
        if (options_.unk_id) {
          if (pending_unk_len > 0 && options_.fuse_unk) {
            pending_unk_len += static_cast<int32_t>(len);
          } else {
            if (pending_unk_len > 0) add(*options_.unk_id, pending_unk_len);
            pending_unk_len = static_cast<int32_t>(len);
          }
        }
        // Without an unknown token the library drops the character.
      }
      i += len;
    }
    if (pending_unk_len > 0) add(*options_.unk_id, pending_unk_len);
    if (symbols.size() <= kShortWord) {
      MergeShort(symbols);
    } else {
      MergeLong(symbols);
    }
    Emit(symbols, ids, spans);
  }

  // Words of at most this many symbols merge by MergeShort's scans; longer
  // ones by MergeLong's queue. Both apply the same merges in the same order.
  static constexpr size_t kShortWord = 32;

  // The lowest-ranked pair, the leftmost of equal ranks, found by a scan of
  // the pairs' rules and merged, until no pair has a rule: the symbols stay
  // packed (the right one of a merged pair is removed) and only the two
  // pairs around a merge are looked up again.
  void MergeShort(std::vector<Symbol>& symbols) const {
    // rules[k]: the rule of pair (k, k + 1), rank kNone without one.
    constexpr int32_t kNone = std::numeric_limits<int32_t>::max();
    MergeTable::Rule rules[kShortWord];
    auto rule_of = [&](size_t k) {
      const auto* r = merges_.Find(symbols[k].id, symbols[k + 1].id);
      return r ? *r : MergeTable::Rule{kNone, 0};
    };
    size_t n = symbols.size();
    for (size_t k = 0; k + 1 < n; ++k) rules[k] = rule_of(k);
    while (n > 1) {
      size_t best = 0;
      for (size_t k = 1; k + 1 < n; ++k)
        if (rules[k].rank < rules[best].rank) best = k;
      if (rules[best].rank == kNone) break;
      symbols[best].id = rules[best].new_id;
      symbols[best].len += symbols[best + 1].len;
      std::copy(symbols.begin() + best + 2, symbols.begin() + n, symbols.begin() + best + 1);
      if (best + 2 < n) std::copy(rules + best + 2, rules + n - 1, rules + best + 1);
      --n;
      symbols.resize(n);
      if (best > 0) rules[best - 1] = rule_of(best - 1);
      if (best + 1 < n) rules[best] = rule_of(best);
    }
  }

  // The queue of MergeWord's step 2: each pair with a rule queued once, and
  // each new pair a merge makes queued as it is made; stale entries (a pair
  // merged away or changed) are skipped when they come up.
  void MergeLong(std::vector<Symbol>& symbols) const {
    thread_local MergeQueue queue;
    std::vector<Candidate>& keys = queue.Buffer();
    for (size_t pos = 0; pos + 1 < symbols.size(); ++pos) {
      if (const auto* rule = merges_.Find(symbols[pos].id, symbols[pos + 1].id)) {
        keys.push_back(Key(rule->rank, static_cast<int32_t>(pos)));
      }
    }
    queue.Assign(std::move(keys));
    while (!queue.empty()) {
      const Candidate top = queue.Pop();
      const auto rank = static_cast<int32_t>(top >> 32);
      const auto pos = static_cast<int32_t>(top & 0xFFFFFFFFu);
      Symbol& left = symbols[pos];
      // A stale entry: its left symbol was merged away, it has nothing on
      // its right any more, or the pair there changed since it was queued.
      if (left.len == 0 || left.next < 0) continue;
      const Symbol right = symbols[left.next];
      const auto* rule = merges_.Find(left.id, right.id);
      if (rule == nullptr || rule->rank != rank) continue;

      symbols[left.next].len = 0;
      left.id = rule->new_id;
      left.len += right.len;
      left.next = right.next;
      if (right.next >= 0) symbols[right.next].prev = pos;
      if (left.prev >= 0) {
        if (const auto* r = merges_.Find(symbols[left.prev].id, left.id)) {
          queue.Push(Key(r->rank, left.prev));
        }
      }
      if (left.next >= 0) {
        if (const auto* r = merges_.Find(left.id, symbols[left.next].id)) {
          queue.Push(Key(r->rank, pos));
        }
      }
    }
  }

  // The ids of the symbols left, each one's bytes after the one before.
  static void Emit(const std::vector<Symbol>& symbols, std::vector<int32_t>& ids,
                   std::vector<Span>* spans) {
    size_t at = 0;
    for (const Symbol& s : symbols) {
      if (s.len == 0) continue;
      ids.push_back(s.id);
      if (spans) spans->emplace_back(at, at + static_cast<size_t>(s.len));
      at += static_cast<size_t>(s.len);
    }
  }

  // The "<0xAB>" pieces of the symbol's text (prefix and suffix included, as
  // the library spells it), added when byte_fallback is on and the
  // vocabulary has every one of them.
  template <class Add>
  bool AddByteFallback(std::string_view piece, size_t i, size_t len, std::string& scratch,
                       Add& add) const {
    if (!options_.byte_fallback) return false;
    scratch.clear();
    if (i > 0) scratch += options_.prefix;
    scratch.append(piece.substr(i, len));
    if (i + len == piece.size()) scratch += options_.suffix;
    for (const char b : scratch) {
      if (byte_ids_[static_cast<unsigned char>(b)] < 0) return false;
    }
    for (const char b : scratch) add(byte_ids_[static_cast<unsigned char>(b)], 1);
    return true;
  }

  TokenTable vocab_;
  MergeTable merges_;
  BpeOptions options_;
  std::array<int32_t, kDirect> direct_ids_;
  std::array<int32_t, 256> byte_ids_;
  PieceCache cache_;
};

// One merge as the file writes it: "a b" (merges.txt's line) or ["a", "b"].
// false for a "#version" line, which the library skips without a rank. A
// line with several spaces (tokens holding spaces) is cut where a, b and ab
// are all tokens, if exactly one cut is, as newer versions of the library
// read it; older ones refuse such lines.
// a and b are views of merge's strings, in the document.
// where(): the merge's name in messages, built only for one.
template <class Where>
bool ReadMerge(simdjson::dom::element merge, const TokenTable& vocab, const Where& where,
               std::string_view& a, std::string_view& b) {
  std::string_view line;
  if (merge.get(line) == simdjson::SUCCESS) {
    if (line.rfind("#version", 0) == 0) return false;
    // The first space and whether there is another (one pass: lines are short).
    size_t space = std::string_view::npos;
    bool several = false;
    for (size_t k = 0; k < line.size(); ++k) {
      if (line[k] != ' ') continue;
      if (space != std::string_view::npos) {
        several = true;
        break;
      }
      space = k;
    }
    if (space == std::string_view::npos) {
      throw Error(where() + ": expected two tokens separated by a space, got " + Quoted(line));
    }
    if (!several) {
      a = line.substr(0, space);
      b = line.substr(space + 1);
      return true;
    }
    int cuts = 0;
    for (size_t cut = space; cut != std::string_view::npos; cut = line.find(' ', cut + 1)) {
      const std::string_view left = line.substr(0, cut);
      const std::string_view right = line.substr(cut + 1);
      if (vocab.Find(left) && vocab.Find(right) && vocab.Find(left, right)) {
        a = left;
        b = right;
        ++cuts;
      }
    }
    if (cuts != 1) {
      throw Error(where() + ": " + Quoted(line) + " has several spaces and " +
                  (cuts == 0 ? "no" : "more than one") +
                  " cut of it into tokens a, b with ab a token; write it as [\"a\", \"b\"]");
    }
    return true;
  }
  simdjson::dom::array pair;
  if (merge.get(pair) == simdjson::SUCCESS && pair.size() == 2 &&
      pair.at(0).get(a) == simdjson::SUCCESS && pair.at(1).get(b) == simdjson::SUCCESS) {
    return true;
  }
  throw Error(where() + ": expected \"a b\" or [\"a\", \"b\"], got " + ToJson(merge, "").dump());
}

// The options of spec's fields, checked against the vocabulary.
BpeOptions ReadOptions(const nlohmann::json& spec, const TokenTable& vocab,
                       const std::string& where) {
  BpeOptions options;
  if (const auto unk = OptionalStringField(spec, "unk_token", where)) {
    options.unk_id = vocab.Find(*unk);
    // The library looks the unknown token up only when a character needs it;
    // phasor asks at load, so a broken file fails before any text is read.
    if (!options.unk_id) {
      throw Error(where + ".unk_token: " + Quoted(*unk) + " is not in the vocabulary");
    }
  }
  options.prefix = StringField(spec, "continuing_subword_prefix", where, "");
  options.suffix = StringField(spec, "end_of_word_suffix", where, "");
  options.fuse_unk = BoolField(spec, "fuse_unk", where, false);
  options.byte_fallback = BoolField(spec, "byte_fallback", where, false);
  options.ignore_merges = BoolField(spec, "ignore_merges", where, false);
  return options;
}

// The merges of list, each (a id, b id) -> (rank, ab id).
MergeTable ReadMerges(simdjson::dom::element list, const TokenTable& vocab,
                      const std::string& prefix, const std::string& where) {
  simdjson::dom::array merges_list;
  if (list.get(merges_list) != simdjson::SUCCESS) throw Error(where + ".merges: expected an array");
  MergeTable merges;
  merges.Reserve(merges_list.size());
  int32_t rank = 0;
  size_t k = 0;
  std::string_view a, b;
  // The field named in messages, built only for one.
  auto item = [&where, &k] { return where + ".merges[" + std::to_string(k) + "]"; };
  for (const simdjson::dom::element merge : merges_list) {
    if (!ReadMerge(merge, vocab, item, a, b)) {
      ++k;
      continue;
    }
    const auto a_id = vocab.Find(a);
    if (!a_id) throw Error(item() + ": " + Quoted(a) + " is not in the vocabulary");
    const auto b_id = vocab.Find(b);
    if (!b_id) throw Error(item() + ": " + Quoted(b) + " is not in the vocabulary");
    // The merged token drops the right part's continuing_subword_prefix.
    const size_t cut = prefix.size();
    if (b.size() < cut || (cut < b.size() && (static_cast<unsigned char>(b[cut]) & 0xC0) == 0x80)) {
      throw Error(item() + ": " + Quoted(b) + " is too short to drop continuing_subword_prefix " +
                  Quoted(prefix) + " from");
    }
    const auto merged_id = vocab.Find(a, b.substr(cut));
    if (!merged_id) {
      throw Error(item() + ": " + Quoted(std::string(a) + std::string(b.substr(cut))) +
                  " is not in the vocabulary");
    }
    merges.Set(*a_id, *b_id, MergeTable::Rule{rank, *merged_id});
    ++rank;
    ++k;
  }
  return merges;
}

}  // namespace

std::unique_ptr<Model> BuildBpe(const ModelSpec& spec, const std::string& where) {
  if (!spec.vocab) throw Error(where + ".vocab: missing");
  if (!spec.merges) throw Error(where + ".merges: missing");
  if (const auto it = spec.fields.find("dropout"); it != spec.fields.end() && !it->is_null()) {
    if (!it->is_number()) throw Error(where + ".dropout: expected a number or null");
    const double p = it->get<double>();
    if (p != 0.0) {
      throw Error(where + ".dropout: " + it->dump() +
                  ": BPE dropout skips merges at random, so its ids are not reproducible; "
                  "phasor reads null or 0 only");
    }
  }
  TokenTable vocab = ReadTokenIds(*spec.vocab, where + ".vocab");
  BpeOptions options = ReadOptions(spec.fields, vocab, where);
  MergeTable merges = ReadMerges(*spec.merges, vocab, options.prefix, where);
  return std::make_unique<Bpe>(std::move(vocab), std::move(merges), std::move(options));
}

}  // namespace phasor::tokenizers

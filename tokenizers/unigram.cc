// Unigram (T5, XLM-R, ALBERT as tokenizer.json writes them): the segmentation
// of a piece whose pieces' scores sum highest, by Viterbi over a trie of the
// vocabulary, as encode_optimized in tokenizers/src/models/unigram/model.rs
// (itself SentencePiece's EncodeOptimized). A character no piece of its own
// length covers may be the unknown piece, scored min_score - 10; consecutive
// unknown pieces are fused into one; with byte_fallback a fused run that is
// not itself a piece becomes its "<0xAB>" byte pieces. Pieces are cached
// (piece_cache.h).
#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/error.h"
#include "tokenizers/json_reader.h"
#include "tokenizers/model.h"
#include "tokenizers/model_spec.h"
#include "tokenizers/model_vocab.h"
#include "tokenizers/piece_cache.h"
#include "tokenizers/utf8.h"

namespace phasor::tokenizers {
namespace {

constexpr double kUnkPenalty = 10.0;

// The vocabulary's pieces as a byte trie: each node's children sorted by byte
// in one array, so a walk is a binary search per byte (a direct table at the
// root, where every walk starts).
class PieceTrie {
 public:
  // The pieces of table, ids 0 to n - 1; none empty, none twice.
  PieceTrie(const TokenTable& table, size_t n) {
    std::vector<std::string_view> pieces(n);
    for (size_t i = 0; i < n; ++i) pieces[i] = table.TokenOf(static_cast<int32_t>(i));
    std::vector<int32_t> order(pieces.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
    std::sort(order.begin(), order.end(),
              [&](int32_t a, int32_t b) { return pieces[a] < pieces[b]; });
    nodes_.push_back(Node{-1, 0, 0});
    Build(pieces, order, 0, order.size(), 0, 0);
    root_.fill(-1);
    for (int32_t e = nodes_[0].edge_begin; e < nodes_[0].edge_end; ++e) {
      root_[edges_[e].byte] = edges_[e].child;
    }
  }

  // Calls found(byte_length, id) for every piece that text starts with,
  // shortest first.
  template <class F>
  void ForEachPrefix(std::string_view text, F&& found) const {
    if (text.empty()) return;
    int32_t node = root_[static_cast<unsigned char>(text[0])];
    for (size_t k = 1; node >= 0; ++k) {
      if (nodes_[node].id >= 0) found(k, nodes_[node].id);
      if (k == text.size()) break;
      node = Child(node, static_cast<unsigned char>(text[k]));
    }
  }

 private:
  struct Node {
    int32_t id;  // the piece ending here, or -1
    int32_t edge_begin, edge_end;
  };
  struct Edge {
    unsigned char byte;
    int32_t child;
  };

  int32_t Child(int32_t node, unsigned char byte) const {
    const Edge* begin = edges_.data() + nodes_[node].edge_begin;
    const Edge* end = edges_.data() + nodes_[node].edge_end;
    const Edge* it = std::lower_bound(begin, end, byte,
                                      [](const Edge& e, unsigned char b) { return e.byte < b; });
    return it != end && it->byte == byte ? it->child : -1;
  }

  // Fills node from pieces order[lo, hi), which share their first depth bytes
  // (sorted, so a piece of exactly depth bytes comes first).
  void Build(const std::vector<std::string_view>& pieces, const std::vector<int32_t>& order,
             size_t lo, size_t hi, size_t depth, int32_t node) {
    if (lo < hi && pieces[order[lo]].size() == depth) nodes_[node].id = order[lo++];
    // One edge per distinct next byte, laid out together before recursing.
    const auto first_edge = static_cast<int32_t>(edges_.size());
    for (size_t i = lo; i < hi;) {
      const auto byte = static_cast<unsigned char>(pieces[order[i]][depth]);
      edges_.push_back(Edge{byte, -1});
      while (i < hi && static_cast<unsigned char>(pieces[order[i]][depth]) == byte) ++i;
    }
    nodes_[node].edge_begin = first_edge;
    nodes_[node].edge_end = static_cast<int32_t>(edges_.size());
    size_t i = lo;
    for (int32_t e = first_edge; e < nodes_[node].edge_end; ++e) {
      size_t j = i;
      while (j < hi && static_cast<unsigned char>(pieces[order[j]][depth]) == edges_[e].byte) ++j;
      const auto child = static_cast<int32_t>(nodes_.size());
      nodes_.push_back(Node{-1, 0, 0});
      edges_[e].child = child;
      Build(pieces, order, i, j, depth + 1, child);
      i = j;
    }
  }

  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  std::array<int32_t, 256> root_;
};

class Unigram final : public Model {
 public:
  Unigram(std::vector<double> scores, TokenTable ids, std::optional<int32_t> unk_id,
          bool byte_fallback)
      : ids_(std::move(ids)),
        trie_(ids_, ids_.size()),
        scores_(std::move(scores)),
        unk_id_(unk_id),
        byte_fallback_(byte_fallback),
        unk_score_(*std::min_element(scores_.begin(), scores_.end()) - kUnkPenalty) {
    for (int b = 0; b < 256; ++b) {
      byte_ids_[b] = ids_.Find(BytePiece(static_cast<unsigned char>(b))).value_or(-1);
    }
  }

  void Tokenize(std::string_view piece, std::vector<int32_t>& ids) const override {
    const bool cacheable = !piece.empty() && piece.size() < PieceCache::kMaxPieceBytes;
    size_t hash = 0;
    if (cacheable) {
      hash = std::hash<std::string_view>()(piece);
      if (cache_.Get(piece, hash, ids)) return;
    }
    const size_t first = ids.size();
    Run(piece, ids, nullptr);
    if (cacheable) cache_.Put(piece, hash, ids.data() + first, ids.size() - first);
  }
  void TokenizeWithOffsets(std::string_view piece, std::vector<int32_t>& ids,
                           std::vector<Span>& spans) const override {
    Run(piece, ids, &spans);
  }
  std::string_view IdToToken(int32_t id) const override { return ids_.TokenOf(id); }

  std::optional<int32_t> TokenToId(std::string_view token) const override {
    return ids_.Find(token);
  }
  int32_t VocabSize() const override { return static_cast<int32_t>(scores_.size()); }

 private:
  // Tokenize, with each id's bytes of piece in spans when given.
  void Run(std::string_view piece, std::vector<int32_t>& ids, std::vector<Span>* spans) const {
    // best[k]: the best path over piece[0, k): its score, the start of its
    // last piece (-1: no path yet) and that piece's id.
    struct Best {
      double score;
      int32_t start;
      int32_t id;
    };
    thread_local std::vector<Best> best;
    thread_local std::vector<Best> path;
    const size_t size = piece.size();
    best.assign(size + 1, Best{0.0, -1, 0});
    for (size_t start = 0; start < size;) {
      const double here = best[start].score;
      const size_t char_len = SequenceLength(static_cast<unsigned char>(piece[start]));
      bool has_single = false;
      // Strictly greater replaces: of equal scores the first path found wins
      // (shorter pieces are found first at each start, earlier starts first).
      trie_.ForEachPrefix(piece.substr(start), [&](size_t len, int32_t id) {
        Best& target = best[start + len];
        const double candidate = here + scores_[id];
        if (target.start < 0 || candidate > target.score) {
          target = Best{candidate, static_cast<int32_t>(start), id};
        }
        if (len == char_len) has_single = true;
      });
      if (!has_single) {
        Best& target = best[start + char_len];
        const double candidate = here + unk_score_;
        if (target.start < 0 || candidate > target.score) {
          if (!unk_id_) {
            throw Error("Unigram model: no piece covers " + Quoted(piece.substr(start, char_len)) +
                        " and the model has no unk_id to stand for it");
          }
          target = Best{candidate, static_cast<int32_t>(start), *unk_id_};
        }
      }
      start += char_len;
    }

    // Walk back, then emit in order; a run of unknown pieces is one piece.
    path.clear();
    for (size_t end = size; end > 0;) {
      const Best& node = best[end];
      path.push_back(Best{0.0, node.start, node.id});
      end = static_cast<size_t>(node.start);
    }
    std::reverse(path.begin(), path.end());
    for (size_t k = 0; k < path.size();) {
      if (!unk_id_ || path[k].id != *unk_id_) {
        const size_t b = static_cast<size_t>(path[k].start);
        const size_t e = k + 1 < path.size() ? static_cast<size_t>(path[k + 1].start) : size;
        ids.push_back(path[k++].id);
        if (spans) spans->emplace_back(b, e);
        continue;
      }
      const size_t run_start = path[k].start;
      while (k < path.size() && path[k].id == *unk_id_) ++k;
      const size_t run_end = k < path.size() ? path[k].start : size;
      const size_t first = ids.size();
      EmitUnknownRun(piece.substr(run_start, run_end - run_start), ids);
      // Every id of the run (byte fallback pieces too) covers the whole run.
      if (spans) spans->resize(spans->size() + ids.size() - first, Span{run_start, run_end});
    }
  }

  // The library looks the fused text up as a token first (a run of several
  // unknown characters can spell a piece), then tries byte fallback, then
  // gives the unknown id.
  void EmitUnknownRun(std::string_view run, std::vector<int32_t>& ids) const {
    if (const auto id = ids_.Find(run)) {
      ids.push_back(*id);
      return;
    }
    if (byte_fallback_ && std::all_of(run.begin(), run.end(), [&](char b) {
          return byte_ids_[static_cast<unsigned char>(b)] >= 0;
        })) {
      for (const char b : run) ids.push_back(byte_ids_[static_cast<unsigned char>(b)]);
      return;
    }
    ids.push_back(*unk_id_);
  }

  TokenTable ids_;  // before trie_, which is built from it
  PieceTrie trie_;
  std::vector<double> scores_;  // [vocab] by id
  std::optional<int32_t> unk_id_;
  bool byte_fallback_;
  double unk_score_;
  std::array<int32_t, 256> byte_ids_;
  PieceCache cache_{10000};  // the ids path's pieces
};

}  // namespace

std::unique_ptr<Model> BuildUnigram(const ModelSpec& spec, const std::string& where) {
  if (!spec.vocab) throw Error(where + ".vocab: missing");
  simdjson::dom::array vocab;
  if (spec.vocab->get(vocab) != simdjson::SUCCESS)
    throw Error(where + ".vocab: expected an array of [piece, score]");
  const size_t n = vocab.size();
  if (n == 0) throw Error(where + ".vocab: the vocabulary is empty");
  if (n >= size_t(INT32_MAX)) throw Error(where + ".vocab: too many pieces");
  std::vector<double> scores;
  TokenTable ids;
  scores.reserve(n);
  ids.Reserve(n, 8 * n);
  size_t i = 0;
  for (const simdjson::dom::element entry : vocab) {
    simdjson::dom::array pair;
    std::string_view piece;
    double score = 0;
    if (entry.get(pair) != simdjson::SUCCESS || pair.size() != 2 ||
        pair.at(0).get(piece) != simdjson::SUCCESS || !pair.at(1).is_number() ||
        pair.at(1).get(score) != simdjson::SUCCESS) {
      throw Error(where + ".vocab[" + std::to_string(i) + "]: expected [piece, score], got " +
                  ToJson(entry, "").dump());
    }
    scores.push_back(score);
    if (!ids.Insert(piece, static_cast<int32_t>(i))) {
      throw Error(where + ".vocab[" + std::to_string(i) + "]: " + Quoted(piece) +
                  " is already piece " + std::to_string(*ids.Find(piece)));
    }
    ++i;
  }
  const nlohmann::json& fields = spec.fields;
  std::optional<int32_t> unk_id;
  if (const auto it = fields.find("unk_id"); it != fields.end() && !it->is_null()) {
    if (!it->is_number_integer() || (!it->is_number_unsigned() && it->get<int64_t>() < 0) ||
        it->get<uint64_t>() >= n) {
      throw Error(where + ".unk_id: " + it->dump() + " is not an id of the vocabulary (0 to " +
                  std::to_string(n - 1) + ")");
    }
    unk_id = static_cast<int32_t>(it->get<int64_t>());
  }
  const bool byte_fallback = BoolField(fields, "byte_fallback", where, false);
  return std::make_unique<Unigram>(std::move(scores), std::move(ids), unk_id, byte_fallback);
}

}  // namespace phasor::tokenizers

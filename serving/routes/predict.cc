// POST /predict, as text-embeddings-inference, for a checkpoint with a
// classification head: {"inputs": str | [str, str] | [[str] | [str, str],
// ...], "truncate": (the server's), "raw_scores": false} -> for one input
// [{"score": s, "label": "..."}, ...], for a batch a list of those; each
// input's labels by score, highest first. Scores are the softmax of the
// logits (the sigmoid of the one logit of a one-label head); raw_scores: the
// logits. A pair is encoded as the tokenizer's pair (segments A and B).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/json_text.h"
#include "serving/routes/routes.h"

namespace phasor::serving {
namespace {

struct PredictInputs {
  bool one = false;  // a single text or pair, not a batch
  std::vector<std::string_view> a, b;
  std::vector<bool> is_pair;  // [a.size()]
  bool pairs = false;         // any item is a pair
};

[[noreturn]] void Invalid(const std::string& message) {
  throw ApiError{422, "Validation", message, "inputs"};
}

// One item of a batch: [str] or [str, str]; name is its place.
void ReadItem(const nlohmann::json& item, const std::string& name, PredictInputs& in) {
  if (!item.is_array() || item.empty() || item.size() > 2 || !item[0].is_string() ||
      (item.size() == 2 && !item[1].is_string())) {
    Invalid(name + ": expected [text] or [text_a, text_b], found " + json_text::Found(item));
  }
  in.a.push_back(item[0].get_ref<const std::string&>());
  in.b.push_back(item.size() == 2 ? std::string_view(item[1].get_ref<const std::string&>())
                                  : std::string_view());
  in.is_pair.push_back(item.size() == 2);
  in.pairs = in.pairs || item.size() == 2;
}

PredictInputs ReadPredictInputs(const nlohmann::json& body) {
  if (!body.is_object()) Invalid("the body must be a JSON object, found " + json_text::Found(body));
  const auto it = body.find("inputs");
  if (it == body.end() || it->is_null())
    Invalid("'inputs' is missing: expected a string, a pair [text_a, text_b] or a list of those");
  const nlohmann::json& v = *it;
  PredictInputs in;
  if (v.is_string()) {
    in.one = true;
    in.a.push_back(v.get_ref<const std::string&>());
    in.b.emplace_back();
    in.is_pair.push_back(false);
    return in;
  }
  if (!v.is_array()) {
    Invalid("'inputs' must be a string, a pair [text_a, text_b] or a list of those, found " +
            json_text::Found(v));
  }
  if (v.empty()) throw ApiError{400, "Empty", "'inputs' is empty: there is nothing to score"};
  if (v[0].is_string()) {  // one text or one pair, as a list
    in.one = true;
    ReadItem(v, "'inputs'", in);
    return in;
  }
  for (size_t i = 0; i < v.size(); ++i) ReadItem(v[i], "inputs[" + std::to_string(i) + "]", in);
  return in;
}

// Scores of one input's logits [w]: softmax, or the sigmoid of one logit.
std::vector<float> Scores(const float* logits, int64_t w, bool raw) {
  std::vector<float> s(logits, logits + w);
  if (raw) return s;
  if (w == 1) {
    s[0] = 1.0f / (1.0f + std::exp(-s[0]));
    return s;
  }
  const float top = *std::max_element(s.begin(), s.end());
  double sum = 0;
  for (float& v : s) sum += (v = std::exp(v - top));
  for (float& v : s) v = static_cast<float>(v / sum);
  return s;
}

}  // namespace

void Predict(Service& service, const HttpRequest& req, HttpReply& reply) {
  CheckClassifies(service, "/predict");
  const nlohmann::json body = ParseBody(req.body);
  const PredictInputs in = ReadPredictInputs(body);
  TextChoices text;
  text.truncate = ReadOptionalBool(body, "truncate");
  const bool raw = ReadBool(body, "raw_scores", false);
  // Single texts and pairs in one request: each its own kind of sequence.
  Sequences seqs;
  if (in.pairs) {
    const auto single = std::find(in.is_pair.begin(), in.is_pair.end(), false);
    if (single != in.is_pair.end()) {
      throw ApiError{422, "Validation",
                     "inputs[" + std::to_string(single - in.is_pair.begin()) +
                         "]: a single text among pairs; send every item as a pair, or each "
                         "kind in its own request",
                     "inputs"};
    }
    seqs = service.PreparePairs(in.a, in.b, "inputs", text);
  } else {
    Inputs texts;
    texts.texts.assign(in.a.begin(), in.a.end());
    seqs = service.Prepare(texts, "inputs", text);
  }
  const int64_t n = seqs.count();
  const int64_t w = service.batcher().width(Output::kLogits);
  const std::vector<float> logits =
      service.Encode(std::move(seqs), Output::kLogits, req.client_gone);
  std::string& out = reply.body;
  if (!in.one) out += '[';
  for (int64_t i = 0; i < n; ++i) {
    const std::vector<float> s = Scores(logits.data() + i * w, w, raw);
    std::vector<size_t> order(s.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return s[x] > s[y]; });
    if (i > 0) out += ',';
    out += '[';
    for (size_t k = 0; k < order.size(); ++k) {
      if (k > 0) out += ',';
      out += "{\"score\":";
      AppendFloat(s[order[k]], out);
      out += ",\"label\":" + Quoted(service.labels()[order[k]]) + "}";
    }
    out += ']';
  }
  if (!in.one) out += ']';
}

}  // namespace phasor::serving

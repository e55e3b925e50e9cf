// POST /rerank, as text-embeddings-inference, for a checkpoint with a
// classification head (a cross-encoder): {"query": str, "texts": [str],
// "truncate": (the server's), "raw_scores": false, "return_text": false} ->
// [{"index": i, "score": s, "text": ...}], highest score first. Each text is
// encoded as the pair (query, text); its score is the sigmoid of the head's
// one logit (raw_scores: the logit).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "serving/routes/routes.h"

namespace phasor::serving {

void CheckClassifies(const Service& service, const char* route) {
  if (service.has_classifier()) return;
  throw ApiError{
      424,
      "Backend",
      service.options().model + " has no classification head: " + route +
          " needs a cross-encoder or classifier (a *ForSequenceClassification "
          "checkpoint); ask /embed or /v1/embeddings",
  };
}

void Rerank(Service& service, const HttpRequest& req, HttpReply& reply) {
  CheckClassifies(service, "/rerank");
  const nlohmann::json body = ParseBody(req.body);
  const Inputs query = ReadInputs(body, "query", false);
  if (!query.one) throw ApiError{422, "Validation", "'query' must be a string", "query"};
  const Inputs texts = ReadInputs(body, "texts", false);
  TextChoices text;
  text.truncate = ReadOptionalBool(body, "truncate");
  const bool raw = ReadBool(body, "raw_scores", false);
  const bool return_text = ReadBool(body, "return_text", false);
  const int64_t w = service.batcher().width(Output::kLogits);
  if (w != 1) {
    throw ApiError{
        424,
        "Backend",
        "the classification head has " + std::to_string(w) +
            " labels; /rerank needs one score a pair (num_labels 1): ask /predict",
    };
  }
  const std::vector<std::string_view> a(texts.texts.size(), query.texts[0]);
  const std::vector<std::string_view> b(texts.texts.begin(), texts.texts.end());
  Sequences seqs = service.PreparePairs(a, b, "texts", text);
  const std::vector<float> logits =
      service.Encode(std::move(seqs), Output::kLogits, req.client_gone);
  std::vector<float> scores(logits.size());
  for (size_t i = 0; i < logits.size(); ++i)
    scores[i] = raw ? logits[i] : 1.0f / (1.0f + std::exp(-logits[i]));
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return scores[x] > scores[y]; });
  std::string& out = reply.body;
  out += '[';
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    if (k > 0) out += ',';
    out += "{\"index\":" + std::to_string(i) + ",\"score\":";
    AppendFloat(scores[i], out);
    if (return_text) out += ",\"text\":" + Quoted(texts.texts[i]);
    out += '}';
  }
  out += ']';
}

}  // namespace phasor::serving

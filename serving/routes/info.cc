// GET /info: the model and the server's limits, as text-embeddings-inference's
// /info names them (model_type {"embedding": {"pooling"}} or {"classifier":
// {"id2label", "label2id"}}, max_input_length, max_batch_tokens,
// max_client_batch_size, auto_truncate, ...), with phasor's own beside them.
#include "serving/routes/routes.h"
#include "tokenizers/tokenizer.h"

namespace phasor::serving {
namespace {

nlohmann::json ModelType(const Service& service) {
  if (service.embeds()) return {{"embedding", {{"pooling", service.pooling()}}}};
  nlohmann::json id2label = nlohmann::json::object(), label2id = nlohmann::json::object();
  const std::vector<std::string>& labels = service.labels();
  for (size_t i = 0; i < labels.size(); ++i) {
    id2label[std::to_string(i)] = labels[i];
    label2id[labels[i]] = i;
  }
  // TEI names a one-label head a reranker.
  return {{labels.size() == 1 ? "reranker" : "classifier",
           {{"id2label", id2label}, {"label2id", label2id}}}};
}

}  // namespace

void Info(Service& service, const HttpRequest&, HttpReply& reply) {
  const ServeOptions& o = service.options();
  nlohmann::json j = {
      {"model_id", o.model},
      {"model_dtype", o.precision},
      {"model_type", ModelType(service)},
      {"model_pooling", service.embeds() ? nlohmann::json(service.pooling()) : nullptr},
      {"dimensions", service.batcher().width(Output::kEmbedding)},
      {"normalize", o.normalize || service.folder_normalizes()},
      {"rerank", service.has_classifier() && service.labels().size() == 1},
      {"tokenizer", service.tokenizer() ? nlohmann::json(service.tokenizer()->description())
                                        : nlohmann::json(nullptr)},
      {"max_input_length", service.max_input_tokens()},
      {"auto_truncate", service.auto_truncate()},
      {"max_batch_tokens", o.max_batch_tokens},
      {"max_concurrent_requests", o.max_concurrent_requests},
      {"max_client_batch_size", o.max_client_batch_size},
      {"payload_limit", o.payload_limit},
      {"version", Version()},
  };
  reply.body = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace phasor::serving

// GET /info: the model and the server's limits, as text-embeddings-inference's
// /info names them where it has a name.
#include "models/serving/routes/routes.h"
#include "models/tokenizers/tokenizer.h"

namespace phasor::serving {

void Info(Service& service, const HttpRequest&, HttpReply& reply) {
  const ServeOptions& o = service.options();
  nlohmann::json j = {
      {"model_id", o.model},
      {"model_dtype", o.precision},
      {"model_pooling", service.pooling()},
      {"dimensions", service.batcher().width(Output::kEmbedding)},
      {"normalize", o.normalize || service.folder_normalizes()},
      {"rerank", service.has_classifier()},
      {"tokenizer", service.tokenizer() ? nlohmann::json(service.tokenizer()->description())
                                        : nlohmann::json(nullptr)},
      {"max_input_length", service.max_input_tokens()},
      {"max_batch_tokens", o.max_batch_tokens},
      {"max_concurrent_requests", o.max_concurrent_requests},
      {"max_client_batch_size", o.max_client_batch_size},
      {"payload_limit", o.payload_limit},
      {"version", Version()},
  };
  reply.body = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace phasor::serving

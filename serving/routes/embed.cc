// POST /embed, as text-embeddings-inference: {"inputs": str | [str] | [int] |
// [[int]], "normalize": true, "truncate": (the server's), "prompt_name": null,
// "dimensions": null} -> [[...], ...], one row per input.
#include "models/pooling.h"
#include "serving/routes/routes.h"

namespace phasor::serving {

void CheckEmbeds(const Service& service) {
  if (service.embeds()) return;
  throw ApiError{
      424,
      "Backend",
      service.options().model +
          " is a classifier (a *ForSequenceClassification "
          "checkpoint with " +
          std::to_string(service.labels().size()) +
          " labels), not an embedding model: ask /predict or /rerank",
  };
}

void Embed(Service& service, const HttpRequest& req, HttpReply& reply) {
  CheckEmbeds(service);
  const nlohmann::json body = ParseBody(req.body);
  const Inputs in = ReadInputs(body, "inputs", true);
  const int64_t w = service.batcher().width(Output::kEmbedding);
  const int64_t dims = ReadDimensions(body, w);
  const bool normalize = ReadBool(body, "normalize", true);
  TextChoices text;
  text.truncate = ReadOptionalBool(body, "truncate");
  text.prompt_name = ReadString(body, "prompt_name", "");
  const std::string direction = ReadString(body, "truncation_direction", "Right");
  if (direction != "Right") {
    throw ApiError{422, "Validation",
                   "'truncation_direction' must be \"Right\" (the end of a text is cut), found " +
                       Quoted(direction),
                   "truncation_direction"};
  }
  Sequences seqs = service.Prepare(in, "inputs", text);
  const int64_t n = seqs.count();
  std::vector<float> rows = service.Encode(std::move(seqs), Output::kEmbedding, req.client_gone);
  if (dims < w) CutRows(rows, n, w, dims, false);
  if (normalize) NormalizeRows(rows.data(), n, dims);
  std::string& out = reply.body;
  out.reserve(static_cast<size_t>(n * dims * 12 + 16));
  out += '[';
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    AppendFloats(rows.data() + i * dims, dims, out);
  }
  out += ']';
}

}  // namespace phasor::serving

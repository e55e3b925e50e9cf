// POST /embed, as text-embeddings-inference: {"inputs": str | [str] | [int] |
// [[int]], "normalize": true, "truncate": false, "prompt_name": null} ->
// [[...], ...], one row per input.
#include "models/pooling.h"
#include "models/serving/routes/routes.h"

namespace phasor::serving {

void Embed(Service& service, const HttpRequest& req, HttpReply& reply) {
  const nlohmann::json body = ParseBody(req.body);
  const Inputs in = ReadInputs(body, "inputs", true);
  CheckDimensions(body, service.batcher().width(Output::kEmbedding));
  const bool normalize = ReadBool(body, "normalize", true);
  TextChoices text;
  text.truncate = ReadBool(body, "truncate", false);
  text.prompt_name = ReadString(body, "prompt_name", "");
  const std::string direction = ReadString(body, "truncation_direction", "Right");
  if (direction != "Right") {
    throw ApiError{422, "Validation",
                   "'truncation_direction' must be \"Right\" (the end of a text is cut), found " +
                       Quoted(direction)};
  }
  Sequences seqs = service.Prepare(in, "inputs", text);
  const int64_t n = seqs.count();
  std::vector<float> rows = service.Encode(std::move(seqs), Output::kEmbedding, req.client_gone);
  const int64_t w = service.batcher().width(Output::kEmbedding);
  if (normalize) NormalizeRows(rows.data(), n, w);
  std::string& out = reply.body;
  out.reserve(static_cast<size_t>(n * w * 12 + 16));
  out += '[';
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    AppendFloats(rows.data() + i * w, w, out);
  }
  out += ']';
}

}  // namespace phasor::serving

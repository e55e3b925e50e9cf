// POST /v1/embeddings, as OpenAI's API: {"input": str | [str] | [int] |
// [[int]], "model": ..., "encoding_format": "float" | "base64", "dimensions":
// N, "truncate": (the server's)} -> {"object": "list", "data": [{"object":
// "embedding", "index": i, "embedding": [...]}], "model": ..., "usage":
// {"prompt_tokens": n, "total_tokens": n}}. Rows are of unit length with
// --normalize (or the folder's Normalize module); "dimensions" keeps each
// row's first N values, renormalised when the rows are of unit length.
#include "models/pooling.h"
#include "serving/routes/routes.h"

namespace phasor::serving {

void OpenAiEmbeddings(Service& service, const HttpRequest& req, HttpReply& reply) {
  CheckEmbeds(service);
  const nlohmann::json body = ParseBody(req.body);
  const Inputs in = ReadInputs(body, "input", true);
  const int64_t w = service.batcher().width(Output::kEmbedding);
  const int64_t dims = ReadDimensions(body, w);
  const std::string format = ReadString(body, "encoding_format", "float");
  if (format != "float" && format != "base64") {
    throw ApiError{422, "Validation",
                   "'encoding_format' must be \"float\" or \"base64\", found " + Quoted(format),
                   "encoding_format"};
  }
  const std::string model_name = ReadString(body, "model", service.options().model);
  TextChoices text;
  text.truncate = ReadOptionalBool(body, "truncate");
  Sequences seqs = service.Prepare(in, "input", text);
  const int64_t tokens = seqs.tokens();
  const int64_t n = seqs.count();
  std::vector<float> rows = service.Encode(std::move(seqs), Output::kEmbedding, req.client_gone);
  const bool unit = service.options().normalize || service.folder_normalizes();
  if (dims < w) CutRows(rows, n, w, dims, false);
  if (unit) NormalizeRows(rows.data(), n, dims);
  std::string& out = reply.body;
  out.reserve(static_cast<size_t>(n * dims * 12 + 256));
  out += "{\"object\":\"list\",\"data\":[";
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    out += "{\"object\":\"embedding\",\"index\":" + std::to_string(i) + ",\"embedding\":";
    if (format == "float") {
      AppendFloats(rows.data() + i * dims, dims, out);
    } else {
      AppendBase64Floats(rows.data() + i * dims, dims, out);
    }
    out += '}';
  }
  out += "],\"model\":" + Quoted(model_name) +
         ",\"usage\":{\"prompt_tokens\":" + std::to_string(tokens) +
         ",\"total_tokens\":" + std::to_string(tokens) + "}}";
}

}  // namespace phasor::serving

// POST /tokenize: {"inputs": str | [str], "add_special_tokens": true,
// "prompt_name": null, "truncate": (the server's)} -> [[id, ...], ...], each
// text's ids from the model folder's own tokenizer, as `phasor tokenize`
// writes them.
#include "serving/routes/routes.h"

namespace phasor::serving {

void Tokenize(Service& service, const HttpRequest& req, HttpReply& reply) {
  const nlohmann::json body = ParseBody(req.body);
  const Inputs in = ReadInputs(body, "inputs", false);
  TextChoices text;
  text.add_special_tokens = ReadBool(body, "add_special_tokens", true);
  text.prompt_name = ReadString(body, "prompt_name", "");
  text.truncate = ReadOptionalBool(body, "truncate");
  const Sequences seqs = service.Prepare(in, "inputs", text);
  std::string& out = reply.body;
  out += '[';
  for (int64_t i = 0; i < seqs.count(); ++i) {
    if (i > 0) out += ',';
    out += '[';
    for (int64_t j = seqs.offsets[i]; j < seqs.offsets[i + 1]; ++j) {
      if (j > seqs.offsets[i]) out += ',';
      out += std::to_string(seqs.ids[j]);
    }
    out += ']';
  }
  out += ']';
}

}  // namespace phasor::serving

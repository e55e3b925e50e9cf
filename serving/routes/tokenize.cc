// POST /tokenize: {"inputs": str | [str], "add_special_tokens": true,
// "prompt_name": null, "truncate": (the server's)} -> for each text a list of
// its tokens in TEI's shape: {"id", "text", "special", "start", "stop"}.
// start and stop are the token's byte offsets in the text (the prompt
// included, as TEI gives them), text the bytes between them; a special token
// the tokenizer's template adds ([CLS], <s>...) has its own string as text
// and null start and stop. An added token written in the text is not special.
#include <nlohmann/json.hpp>

#include "serving/routes/routes.h"
#include "tokenizers/tokenizer.h"

namespace phasor::serving {

void Tokenize(Service& service, const HttpRequest& req, HttpReply& reply) {
  const nlohmann::json body = ParseBody(req.body);
  const Inputs in = ReadInputs(body, "inputs", false);
  TextChoices text;
  text.add_special_tokens = ReadBool(body, "add_special_tokens", true);
  text.prompt_name = ReadString(body, "prompt_name", "");
  text.truncate = ReadOptionalBool(body, "truncate");
  text.offsets = true;
  const Sequences seqs = service.Prepare(in, "inputs", text);
  nlohmann::json out = nlohmann::json::array();
  for (int64_t i = 0; i < seqs.count(); ++i) {
    const std::string input = seqs.prefix + in.texts[static_cast<size_t>(i)];
    nlohmann::json tokens = nlohmann::json::array();
    for (int64_t j = seqs.offsets[i]; j < seqs.offsets[i + 1]; ++j) {
      const auto k = static_cast<size_t>(j);
      const auto [start, stop] = seqs.spans[k];
      nlohmann::json t = {{"id", seqs.ids[k]}, {"special", seqs.special[k] != 0}};
      if (seqs.special[k]) {
        t["text"] = service.tokenizer()->IdToToken(seqs.ids[k]);
        t["start"] = nullptr;
        t["stop"] = nullptr;
      } else {
        const auto b = static_cast<size_t>(std::min<int64_t>(start, input.size()));
        const auto e = static_cast<size_t>(std::min<int64_t>(std::max(start, stop), input.size()));
        t["text"] = input.substr(b, e - b);
        t["start"] = start;
        t["stop"] = stop;
      }
      tokens.push_back(std::move(t));
    }
    out.push_back(std::move(tokens));
  }
  reply.body += out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace phasor::serving

// phasor serve: the encoder behind HTTP (serving/serve.h).
#include <iostream>
#include <memory>
#include <mutex>

#include "serving/serve.h"
#include "tools/commands.h"

namespace phasor::cli {

void AddServeCommand(CLI::App& app) {
  auto o = std::make_shared<serving::ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Serve the model over HTTP: POST /v1/embeddings (OpenAI), /embed, /rerank, /predict, "
      "/tokenize (text-embeddings-inference), GET /health, /info, /metrics (Prometheus)");
  cmd->add_option("--model", o->model, "Model folder (a tokenizer in it lets requests send text)")
      ->required();
  cmd->add_option("--host", o->host, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", o->port, "Port (0: a free one, printed when listening)")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads,
                  "Encoder threads (0: OMP_NUM_THREADS if set, else all cores)");
  cmd->add_option("--max-batch-tokens", o->max_batch_tokens,
                  "Real tokens one batch holds at most, from many requests at once")
      ->capture_default_str();
  cmd->add_option("--max-concurrent-requests", o->max_concurrent_requests,
                  "Requests in flight at most; more are answered 429 with Retry-After")
      ->capture_default_str();
  cmd->add_option("--max-client-batch-size", o->max_client_batch_size,
                  "Inputs one request may hold (OpenAI's own limit by default; a large request "
                  "is split across batches)")
      ->capture_default_str();
  cmd->add_option("--max-input-tokens", o->max_input_tokens,
                  "Tokens one input may hold (0: the least of the tokenizer's "
                  "model_max_length, the sentence-transformers folder's max_seq_length and the "
                  "model's positions)");
  cmd->add_flag_function(
      "--auto-truncate", [o](int64_t) { o->auto_truncate = true; },
      "Cut an input past that length to its first tokens when the request does not say "
      "(\"truncate\"); the default for a sentence-transformers folder, as "
      "sentence-transformers cuts at max_seq_length");
  cmd->add_flag_function(
      "--no-auto-truncate", [o](int64_t) { o->auto_truncate = false; },
      "Refuse (413) an input past that length unless the request sends \"truncate\": true; "
      "the default for other folders");
  cmd->add_option("--payload-limit", o->payload_limit, "Bytes a request body may hold")
      ->capture_default_str();
  cmd->add_option("--pool", o->pool,
                  "mean, cls, max, last, mean_sqrt_len or model (default: the folder's "
                  "sentence-transformers pooling, else mean)");
  cmd->add_flag("--normalize", o->normalize, "/v1/embeddings rows of unit L2 norm");
  cmd->add_option("--precision", o->precision, "fp32, bf16 or int8")->capture_default_str();
  cmd->add_option("--rope-angles", o->rope_angles,
                  "Rotary angles: exact, or library (float32, as the model's own Python code)")
      ->capture_default_str();
  cmd->add_flag("--quiet", o->quiet, "No log line per request");
  cmd->callback([o] {
    auto mu = std::make_shared<std::mutex>();
    JobEvents events;
    events.warning = [](const std::string& w) { std::cerr << "phasor: warning: " << w << "\n"; };
    serving::RunServe(*o, events, [mu](const std::string& line) {
      std::lock_guard<std::mutex> lock(*mu);
      std::cerr << "phasor: info: " << line << std::endl;
    });
  });
}

}  // namespace phasor::cli

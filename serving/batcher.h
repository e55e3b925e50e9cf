// Continuous batching for the server: requests wait in one queue; a thread of
// its own takes sequences from as many of them as fit under a budget of real
// tokens, encodes them as one packed batch (Model::EncodePacked: no padding)
// and hands each request its rows the moment its last sequence is done. A
// request larger than the budget is split across batches; one whose client
// has gone is dropped before it is computed.
//
// A sequence's output does not depend on what shares its batch: EncodePacked
// gives every sequence the bits it gets when encoded alone, the bits of
// `phasor encode` on the same ids.
//
//   Batcher batcher(model, {.max_batch_tokens = 16384, .embedding = options});
//   auto job = batcher.Submit(std::move(seqs), Output::kEmbedding);
//   batcher.Wait(*job, [&] { return client_gone(); });  // job->rows(): [n, width]
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "models/phasor.h"

namespace phasor::serving {

using Clock = std::chrono::steady_clock;

// What a request asks of each sequence.
enum class Output {
  kEmbedding,  // the pooled row (BatcherOptions::embedding)
  kLogits,     // the classification head's logits (rerank)
};

// One request's sequences, packed: sequence i is ids[offsets[i] .. offsets[i + 1]).
struct Sequences {
  std::vector<int32_t> ids;      // [offsets.back()]
  std::vector<int32_t> types;    // [offsets.back()] token types, or empty: all type 0
  std::vector<int64_t> offsets;  // [count() + 1] from 0, increasing
  // Text asked with TextChoices::offsets only, else empty: [ids.size()] each
  // id's byte span in prefix + its text, and 1 for a special token the
  // tokenizer's template added; prefix is the prompt put before each text.
  std::vector<std::pair<int64_t, int64_t>> spans;
  std::vector<uint8_t> special;
  std::string prefix;
  int64_t count() const { return offsets.empty() ? 0 : static_cast<int64_t>(offsets.size()) - 1; }
  int64_t tokens() const { return offsets.empty() ? 0 : offsets.back(); }
};

// What the batcher reports of each batch (for the metrics).
struct BatchReport {
  int64_t sequences = 0;
  int64_t tokens = 0;
  double seconds = 0;     // encoding it
  bool completed = true;  // false: stopped (every client gone) or failed
};

struct BatcherOptions {
  // Real tokens a batch holds at most; a longer sequence is a batch alone.
  int64_t max_batch_tokens = 16384;
  // How Output::kEmbedding rows are made: pool, sentence_dense (normalize is
  // the caller's, per request: NormalizeRows on the rows).
  EncodeOptions embedding;
  // Called after every batch, on the batcher's thread.
  std::function<void(const BatchReport&)> on_batch;
  // Called with the seconds a request waited before its first batch began.
  std::function<void(double)> on_queued;
};

// One request in the batcher. Made by Submit; read by its waiter after Wait.
class Job {
 public:
  const Sequences& sequences() const { return seqs_; }
  Output output() const { return output_; }
  int64_t width() const { return width_; }
  // [count, width] row-major once Wait returned true.
  const std::vector<float>& rows() const { return rows_; }
  std::vector<float>& rows() { return rows_; }
  // Why the request failed ("" if it did not): the encoder's message. A copy:
  // a batch still running a cancelled job's other sequences may set it.
  std::string error() const {
    std::lock_guard<std::mutex> lock(mu_);
    return error_;
  }
  // The client went away: no more of its sequences are computed.
  void Cancel() { cancelled_.store(true); }
  bool cancelled() const { return cancelled_.load(); }

 private:
  friend class Batcher;
  Sequences seqs_;
  Output output_ = Output::kEmbedding;
  int64_t width_ = 0;
  std::vector<float> rows_;
  int64_t next_ = 0;  // the first sequence not yet given to a batch (batcher's lock)
  int64_t done_ = 0;  // sequences whose rows are written (mu_)
  bool finished_ = false;
  std::string error_;
  std::atomic<bool> cancelled_{false};
  Clock::time_point enqueued_;
  bool started_ = false;
  mutable std::mutex mu_;
  std::condition_variable cv_;
};

class Batcher {
 public:
  // Starts the batching thread. model must outlive the batcher.
  Batcher(const Model& model, BatcherOptions options);
  // Stop(), then joins.
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Queues seqs (at least one sequence, each of at least one token, already
  // checked against the vocabulary and the model's length).
  std::shared_ptr<Job> Submit(Sequences seqs, Output output);

  // Waits until every row of job is written (true) or the job failed or was
  // cancelled (false). Every poll interval client_gone is asked; once it
  // says true the job is cancelled and Wait returns false.
  bool Wait(Job& job, const std::function<bool()>& client_gone);

  // Sequences waiting for a batch.
  int64_t queued_sequences() const;
  // Width of each row of output.
  int64_t width(Output output) const;

  // Finishes every queued request, then ends the thread. Submit after Stop
  // fails the job at once ("the server is shutting down").
  void Stop();

 private:
  // One request's share of a batch: sequences first .. first + count - 1.
  struct Piece {
    std::shared_ptr<Job> job;
    int64_t first = 0;
    int64_t count = 0;
  };
  void Loop();
  // Takes pieces from the queue under the budget (mu_ held).
  std::vector<Piece> FormBatch();
  // Waits briefly (mu_ held by lock) for the last batch's clients' next requests.
  void GatherFor(std::unique_lock<std::mutex>& lock);
  // Encodes the pieces as one packed batch and gives each job its rows. If the
  // engine refuses the batch, each piece is run again alone, so that one
  // request's input fails that request only.
  void RunBatch(const std::vector<Piece>& pieces);
  static void Finish(Job& job, int64_t sequences, const std::string& error);

  const Model& model_;
  BatcherOptions options_;
  EncodeOptions logits_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> queue_;
  int64_t queued_ = 0;  // sequences not yet given to a batch
  bool stopping_ = false;
  int64_t last_sequences_ = 0;                     // of the last batch
  std::chrono::duration<double> last_seconds_{0};  // its encoding
  // Reused from batch to batch: the packed ids, types, offsets and rows.
  std::vector<int32_t> ids_;      // [tokens]
  std::vector<int32_t> types_;    // [tokens]
  std::vector<int64_t> offsets_;  // [sequences + 1]
  std::vector<float> out_;        // [sequences, width]
  // PHASOR_TEST_BATCH_DELAY_MS: a pause before each batch is formed, so that
  // the tests can hold requests in flight (429, SIGTERM, a client gone).
  std::chrono::milliseconds test_delay_{0};
  std::thread thread_;
};

}  // namespace phasor::serving

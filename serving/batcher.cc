#include "serving/batcher.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "engine/error.h"
#include "models/pooling.h"

namespace phasor::serving {
namespace {

// The longest a batch waits for the last batch's clients to come back.
constexpr auto kMaxGather = std::chrono::milliseconds(2);

// How often a waiting request asks whether its client is still there.
constexpr auto kPollInterval = std::chrono::milliseconds(20);

}  // namespace

Batcher::Batcher(const Model& model, BatcherOptions options)
    : model_(model), options_(std::move(options)) {
  options_.embedding.normalize = false;  // per request, after the batch
  options_.embedding.batch_tokens = options_.max_batch_tokens;
  if (const char* delay = std::getenv("PHASOR_TEST_BATCH_DELAY_MS"))
    test_delay_ = std::chrono::milliseconds(std::atoll(delay));
  logits_.head = HeadOutput::kLogits;
  logits_.batch_tokens = options_.max_batch_tokens;
  thread_ = std::thread([this] { Loop(); });
}

Batcher::~Batcher() {
  Stop();
  if (thread_.joinable()) thread_.join();
}

int64_t Batcher::width(Output output) const {
  return model_.output_dim(output == Output::kLogits ? logits_ : options_.embedding);
}

std::shared_ptr<Job> Batcher::Submit(Sequences seqs, Output output) {
  auto job = std::make_shared<Job>();
  job->output_ = output;
  job->width_ = width(output);
  job->rows_.assign(static_cast<size_t>(seqs.count() * job->width_), 0.0f);
  job->seqs_ = std::move(seqs);
  job->enqueued_ = Clock::now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      queued_ += job->seqs_.count();
      queue_.push_back(job);
      cv_.notify_one();
      return job;
    }
  }
  Finish(*job, 0, "the server is shutting down");
  return job;
}

bool Batcher::Wait(Job& job, const std::function<bool()>& client_gone) {
  std::unique_lock<std::mutex> lock(job.mu_);
  while (!job.finished_) {
    if (job.cv_.wait_for(lock, kPollInterval, [&] { return job.finished_; })) break;
    lock.unlock();
    const bool gone = client_gone && client_gone();
    lock.lock();
    if (gone) {
      job.Cancel();
      return false;
    }
  }
  return job.error_.empty() && !job.cancelled();
}

int64_t Batcher::queued_sequences() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queued_;
}

void Batcher::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopping_ = true;
  cv_.notify_all();
}

void Batcher::Finish(Job& job, int64_t sequences, const std::string& error) {
  std::lock_guard<std::mutex> lock(job.mu_);
  job.done_ += sequences;
  if (!error.empty() && job.error_.empty()) job.error_ = error;
  if (job.done_ >= job.seqs_.count() || !job.error_.empty()) {
    job.finished_ = true;
    job.cv_.notify_all();
  }
}

std::vector<Batcher::Piece> Batcher::FormBatch() {
  std::vector<Piece> pieces;
  int64_t tokens = 0;
  const Output output = queue_.front()->output_;
  for (auto it = queue_.begin(); it != queue_.end();) {
    Job& job = **it;
    if (job.cancelled()) {  // its client is gone: none of the rest is computed
      queued_ -= job.seqs_.count() - job.next_;
      Finish(job, 0, "cancelled");
      it = queue_.erase(it);
      continue;
    }
    if (job.output_ != output) {
      ++it;
      continue;
    }
    Piece piece{*it, job.next_, 0};
    const std::vector<int64_t>& off = job.seqs_.offsets;
    while (job.next_ < job.seqs_.count()) {
      const int64_t len = off[job.next_ + 1] - off[job.next_];
      if (tokens > 0 && tokens + len > options_.max_batch_tokens) break;
      tokens += len;
      ++job.next_;
      ++piece.count;
    }
    if (piece.count > 0) {
      if (!job.started_) {
        job.started_ = true;
        if (options_.on_queued)
          options_.on_queued(std::chrono::duration<double>(Clock::now() - job.enqueued_).count());
      }
      queued_ -= piece.count;
      pieces.push_back(std::move(piece));
    }
    if (job.next_ == job.seqs_.count()) {
      it = queue_.erase(it);
    } else {
      break;  // the budget is spent
    }
  }
  return pieces;
}

void Batcher::Loop() {
  for (;;) {
    std::vector<Piece> pieces;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;     // stopping, and nothing is left
      if (test_delay_.count() > 0) {  // a request held in flight, for the tests
        lock.unlock();
        std::this_thread::sleep_for(test_delay_);
        lock.lock();
        if (queue_.empty()) continue;
      }
      GatherFor(lock);
      pieces = FormBatch();
    }
    if (!pieces.empty()) RunBatch(pieces);
  }
}

void Batcher::GatherFor(std::unique_lock<std::mutex>& lock) {
  // The clients of the last batch were answered a moment ago and are sending
  // their next requests: fewer sequences queued than that batch held means
  // most of them are on their way. A batch formed now would be small, and a
  // small batch costs nearly what a large one does (every weight is read
  // once a batch), so wait for them a little: at most a tenth of that
  // batch's time, and never with a single client (the last batch of one).
  if (last_sequences_ <= 1 || queued_ >= last_sequences_) return;
  const auto wait = std::min<Clock::duration>(
      kMaxGather, std::chrono::duration_cast<Clock::duration>(last_seconds_ / 10));
  cv_.wait_for(lock, wait, [this] { return stopping_ || queued_ >= last_sequences_; });
}

void Batcher::RunBatch(const std::vector<Piece>& pieces) {
  // Packs the pieces' sequences back to back: ids_, types_ [tokens], offsets_ [n + 1].
  ids_.clear();
  types_.clear();
  offsets_.assign(1, 0);
  bool typed = false;
  for (const Piece& p : pieces) typed = typed || !p.job->seqs_.types.empty();
  for (const Piece& p : pieces) {
    const Sequences& s = p.job->seqs_;
    const int64_t begin = s.offsets[p.first];
    const int64_t end = s.offsets[p.first + p.count];
    ids_.insert(ids_.end(), s.ids.begin() + begin, s.ids.begin() + end);
    if (typed) {
      if (s.types.empty()) {
        types_.resize(types_.size() + static_cast<size_t>(end - begin), 0);
      } else {
        types_.insert(types_.end(), s.types.begin() + begin, s.types.begin() + end);
      }
    }
    for (int64_t i = p.first; i < p.first + p.count; ++i)
      offsets_.push_back(offsets_.back() + s.offsets[i + 1] - s.offsets[i]);
  }
  const auto n = static_cast<int64_t>(offsets_.size()) - 1;
  const Output output = pieces.front().job->output_;
  EncodeOptions options = output == Output::kLogits ? logits_ : options_.embedding;
  const int64_t w = model_.output_dim(options);
  out_.resize(static_cast<size_t>(n * w));
  options.token_types = typed ? types_.data() : nullptr;
  options.cancelled = [&pieces] {
    return std::all_of(pieces.begin(), pieces.end(),
                       [](const Piece& p) { return p.job->cancelled(); });
  };
  std::string error;
  const auto start = Clock::now();
  try {
    model_.EncodePacked(ids_.data(), offsets_.data(), n, out_.data(), options);
  } catch (const Cancelled&) {
    error = "cancelled";
  } catch (const std::exception& e) {
    error = e.what();
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  {
    std::lock_guard<std::mutex> lock(mu_);
    last_sequences_ = n;
    last_seconds_ = std::chrono::duration<double>(seconds);
  }
  // Reported before any answer goes: a client that reads the metrics after
  // its answer finds its batch in them.
  if (options_.on_batch) options_.on_batch({n, offsets_.back(), seconds, error.empty()});
  if (!error.empty() && error != "cancelled" && pieces.size() > 1) {
    // Every sequence was checked before it was queued, so this is the engine
    // refusing something no rule foresaw: each request is run again alone,
    // and only the one that holds it fails.
    for (const Piece& p : pieces) RunBatch({p});
    return;
  }
  int64_t row = 0;
  for (const Piece& p : pieces) {
    Job& job = *p.job;
    if (error.empty()) {
      std::memcpy(job.rows_.data() + p.first * w, out_.data() + row * w,
                  static_cast<size_t>(p.count * w) * sizeof(float));
    }
    row += p.count;
    if (!error.empty()) job.Cancel();  // the rest of it is not computed either
    Finish(job, p.count, error);
  }
}

}  // namespace phasor::serving

// What the server counts, in Prometheus' text format (GET /metrics): requests
// by route and status, the queue, batch sizes and tokens, and histograms of
// the time requests spend queued, tokenizing, encoding and in all.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace phasor::serving {

// A Prometheus histogram: counts of observations at or below each bound.
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void Observe(double value);
  // Its lines (_bucket with le, _sum, _count) for name.
  void Render(const std::string& name, std::string& out) const;

 private:
  std::vector<double> bounds_;
  mutable std::mutex mu_;
  std::vector<uint64_t> counts_;  // [bounds + 1]: the last is +Inf
  double sum_ = 0;
  uint64_t count_ = 0;
};

class Metrics {
 public:
  Metrics();
  // One answered request: its route ("/embed") and HTTP status.
  void CountRequest(const std::string& route, int status);
  void AddTokens(int64_t tokens) { tokens_.fetch_add(tokens); }

  Histogram queue_seconds;      // from arrival in the queue to its first batch
  Histogram tokenize_seconds;   // a request's texts to ids
  Histogram inference_seconds;  // one batch through the encoder
  Histogram request_seconds;    // a request, from its body read to its answer
  Histogram batch_tokens;       // real tokens of a batch
  Histogram batch_size;         // sequences of a batch

  // The whole page; queued and in_flight are read by the caller at the time.
  std::string Render(int64_t queued, int64_t in_flight) const;

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  std::atomic<int64_t> tokens_{0};
};

}  // namespace phasor::serving

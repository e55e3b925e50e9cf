#include "serving/metrics.h"

#include <algorithm>
#include <cstdio>

namespace phasor::serving {
namespace {

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// Seconds, from 0.5 ms to 30 s.
std::vector<double> TimeBounds() {
  return {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
}

// Powers of two up to 2^20.
std::vector<double> CountBounds() {
  std::vector<double> b;
  for (double v = 1; v <= (1 << 20); v *= 2) b.push_back(v);
  return b;
}

void Header(const std::string& name, const char* type, const char* help, std::string& out) {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::Observe(double value) {
  const auto at = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  std::lock_guard<std::mutex> lock(mu_);
  ++counts_[static_cast<size_t>(at)];
  sum_ += value;
  ++count_;
}

void Histogram::Render(const std::string& name, std::string& out) const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += counts_[i];
    out += name + "_bucket{le=\"" + Number(bounds_[i]) + "\"} " + std::to_string(cumulative) + "\n";
  }
  out += name + "_bucket{le=\"+Inf\"} " + std::to_string(count_) + "\n";
  out += name + "_sum " + Number(sum_) + "\n";
  out += name + "_count " + std::to_string(count_) + "\n";
}

Metrics::Metrics()
    : queue_seconds(TimeBounds()),
      tokenize_seconds(TimeBounds()),
      inference_seconds(TimeBounds()),
      request_seconds(TimeBounds()),
      batch_tokens(CountBounds()),
      batch_size(CountBounds()) {}

void Metrics::CountRequest(const std::string& route, int status) {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_[{route, status}];
}

std::string Metrics::Render(int64_t queued, int64_t in_flight) const {
  std::string out;
  Header("phasor_requests_total", "counter", "Requests answered, by route and HTTP status.", out);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, n] : requests_) {
      out += "phasor_requests_total{route=\"" + key.first + "\",code=\"" +
             std::to_string(key.second) + "\"} " + std::to_string(n) + "\n";
    }
  }
  Header("phasor_tokens_total", "counter", "Real tokens encoded.", out);
  out += "phasor_tokens_total " + std::to_string(tokens_.load()) + "\n";
  Header("phasor_queue_size", "gauge", "Sequences waiting for a batch.", out);
  out += "phasor_queue_size " + std::to_string(queued) + "\n";
  Header("phasor_requests_in_flight", "gauge", "Requests being tokenized, queued or encoded.", out);
  out += "phasor_requests_in_flight " + std::to_string(in_flight) + "\n";
  const std::pair<const char*, const Histogram*> histograms[] = {
      {"phasor_queue_seconds", &queue_seconds},
      {"phasor_tokenize_seconds", &tokenize_seconds},
      {"phasor_inference_seconds", &inference_seconds},
      {"phasor_request_seconds", &request_seconds},
      {"phasor_batch_tokens", &batch_tokens},
      {"phasor_batch_size", &batch_size}};
  const char* help[] = {"Seconds from the queue to a request's first batch.",
                        "Seconds tokenizing a request's texts.",
                        "Seconds encoding one batch.",
                        "Seconds from a request's body to its answer.",
                        "Real tokens in a batch.",
                        "Sequences in a batch."};
  for (size_t i = 0; i < std::size(histograms); ++i) {
    Header(histograms[i].first, "histogram", help[i], out);
    histograms[i].second->Render(histograms[i].first, out);
  }
  return out;
}

}  // namespace phasor::serving

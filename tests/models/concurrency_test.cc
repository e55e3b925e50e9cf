// One loaded Encoder shared read-only by many threads, each with its own
// workspace: every result must equal the single-threaded one bit for bit.
// Run under ThreadSanitizer by `make tsan`.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "engine/parallel.h"
#include "layers/sinusoidal.h"
#include "models/encoder.h"
#include "models/toy.h"

namespace phasor {
namespace {

constexpr int kThreads = 8;
constexpr int kRounds = 3;  // each thread runs every case this many times

// A small model with a short PE table (max_len 24) so that the longer cases
// read the table and then compute rows on the fly (mode auto).
ModelConfig SmallConfig() {
  ModelConfig c = ToyConfig();
  c.vocab_size = 97;
  c.d_model = 32;
  c.n_heads = 4;
  c.n_layers = 2;
  c.d_ff = 64;
  c.pad_token_id = 0;
  c.positional.max_len = 24;
  c.positional.offset = 3;
  return c;
}

struct Case {
  int64_t batch = 1;
  int64_t seq = 1;
  std::vector<int32_t> ids;      // [batch, seq]
  std::vector<int64_t> lengths;  // [batch]
  std::vector<float> expected;   // [batch·seq, d_model], single-threaded
};

std::vector<Case> MakeCases(int64_t vocab) {
  std::vector<Case> cases;
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int i = 0; i < 48; ++i) {
    Case k;
    k.batch = 1 + i % 3;
    k.seq = 1 + static_cast<int64_t>(next() % 40);  // up to 40 > max_len + offset
    for (int64_t b = 0; b < k.batch; ++b) {
      const int64_t n = b == 0 ? k.seq : 1 + static_cast<int64_t>(next() % k.seq);
      k.lengths.push_back(n);
      for (int64_t j = 0; j < k.seq; ++j) {
        k.ids.push_back(j < n ? static_cast<int32_t>(1 + next() % (vocab - 1)) : 0);
      }
    }
    cases.push_back(std::move(k));
  }
  return cases;
}

void Encode(const Encoder& enc, const Case& k, EncoderWorkspace& ws, std::vector<float>& out) {
  out.assign(static_cast<size_t>(k.batch * k.seq * enc.config().d_model), -1.0f);
  enc.Forward({k.ids.data(), k.batch, k.seq, k.lengths.data()}, EncoderStage::kFinal, out.data(),
              ws);
}

bool BitEqual(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class ConcurrencyTest : public ::testing::Test {
 protected:
  static constexpr int64_t kMaxTokens = 3 * 40;

  void SetUp() override {
    saved_threads_ = NumThreads();
    const ModelConfig c = SmallConfig();
    enc_ = std::make_unique<Encoder>(c, ToyWeights(c, 7));
    cases_ = MakeCases(c.vocab_size);
    SetNumThreads(1);
    EncoderWorkspace ws = enc_->MakeWorkspace(kMaxTokens);
    for (Case& k : cases_) Encode(*enc_, k, ws, k.expected);
    SetNumThreads(saved_threads_);
  }
  void TearDown() override { SetNumThreads(saved_threads_); }

  // kThreads std::threads share enc_; each runs every case kRounds times in
  // its own order with its own workspace. omp_threads: ParallelTasks threads per
  // caller (0: the default, all cores). Returns the number of mismatches.
  int RunShared(int omp_threads) {
    std::vector<int> mismatches(kThreads, 0);
    std::vector<std::thread> workers;
    for (int t = 0; t < kThreads; ++t) {
      workers.emplace_back([&, t] {
        SetNumThreads(omp_threads);  // this thread's OpenMP setting only
        EncoderWorkspace ws = enc_->MakeWorkspace(kMaxTokens);
        std::vector<float> out;
        const size_t n = cases_.size();
        for (int r = 0; r < kRounds; ++r) {
          for (size_t i = 0; i < n; ++i) {
            const Case& k = cases_[(i * 7 + static_cast<size_t>(t) * 5 + r) % n];
            Encode(*enc_, k, ws, out);
            if (!BitEqual(out, k.expected)) ++mismatches[t];
          }
        }
      });
    }
    for (std::thread& w : workers) w.join();
    int total = 0;
    for (int m : mismatches) total += m;
    return total;
  }

  int saved_threads_ = 1;
  std::unique_ptr<Encoder> enc_;
  std::vector<Case> cases_;
};

TEST_F(ConcurrencyTest, EightThreadsOneOpenMpThreadEachMatchSerialBitForBit) {
  EXPECT_EQ(RunShared(1), 0);
}

// Each caller also parallelises inside (its own OpenMP team): still the same
// bits, since no result depends on the thread count.
TEST_F(ConcurrencyTest, EightThreadsWithOpenMpInsideMatchSerialBitForBit) {
  EXPECT_EQ(RunShared(0), 0);
}

// Mode auto reads the table inside max_len and computes rows beyond it with
// per-thread scratch: concurrent calls past the table leave the shared
// encoding unchanged and agree with a serial call.
TEST(ConcurrencyPeTest, AutoModeBeyondTheTableMutatesNoSharedState) {
  SinusoidalOptions o;
  o.d_model = 64;
  o.max_len = 100;
  o.mode = PeMode::kAuto;
  const SinusoidalEncoding pe(o);
  const std::vector<float> table(pe.table(), pe.table() + pe.table_rows() * o.d_model);
  const int64_t first = 60, n = 500;  // 40 rows from the table, 460 beyond
  std::vector<float> expected(static_cast<size_t>(n * o.d_model));
  pe.FillSerial(first, n, nullptr, expected.data());
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      std::vector<float> out(expected.size());
      for (int r = 0; r < 20; ++r) {
        pe.FillSerial(first, n, nullptr, out.data());
        if (!BitEqual(out, expected)) ++mismatches[t];
      }
    });
  }
  for (std::thread& w : workers) w.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  EXPECT_EQ(pe.table_rows(), 100);
  EXPECT_TRUE(BitEqual(std::vector<float>(pe.table(), pe.table() + table.size()), table));
}

}  // namespace
}  // namespace phasor

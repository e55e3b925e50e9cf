// The batcher: many requests' sequences in one packed batch under the token
// budget, a large request split across batches, every row the bits of its
// sequence encoded alone; a cancelled request never computed; Stop finishes
// what is queued.
#include "serving/batcher.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "tests/support/toy_dir.h"

namespace phasor::serving {
namespace {

constexpr int64_t kDModel = 16;

class BatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = std::make_unique<Model>(Model::Load(toy_.path()));
    options_.embedding.pool = Pooling::kMean;
    options_.on_batch = [this](const BatchReport& r) {
      std::lock_guard<std::mutex> lock(mu_);
      batches_.push_back(r);
    };
  }
  void TearDown() override { unsetenv("PHASOR_TEST_BATCH_DELAY_MS"); }

  // Sequences of the given lengths, ids from first on.
  static Sequences Make(const std::vector<int64_t>& lengths, int32_t first) {
    Sequences s;
    s.offsets.push_back(0);
    for (const int64_t n : lengths) {
      for (int64_t j = 0; j < n; ++j) s.ids.push_back(1 + (first++ % 49));
      s.offsets.push_back(s.offsets.back() + n);
    }
    return s;
  }
  // Sequence i of s encoded alone, mean-pooled: [d_model].
  std::vector<float> Alone(const Sequences& s, int64_t i) const {
    const int64_t offsets[] = {0, s.offsets[i + 1] - s.offsets[i]};
    std::vector<float> out(kDModel);
    EncodeOptions o;
    o.pool = Pooling::kMean;
    model_->EncodePacked(s.ids.data() + s.offsets[i], offsets, 1, out.data(), o);
    return out;
  }
  void ExpectRowsAlone(const Job& job) const {
    const Sequences& s = job.sequences();
    for (int64_t i = 0; i < s.count(); ++i) {
      const std::vector<float> want = Alone(s, i);
      EXPECT_EQ(std::memcmp(job.rows().data() + i * kDModel, want.data(), kDModel * 4), 0)
          << "sequence " << i;
    }
  }

  testing::ToyDir toy_{testing::SmallToyConfig(50, kDModel, 2), "batcher"};
  std::unique_ptr<Model> model_;
  BatcherOptions options_;
  std::mutex mu_;
  std::vector<BatchReport> batches_;
};

TEST_F(BatcherTest, SplitsALargeRequestUnderTheBudget) {
  options_.max_batch_tokens = 8;
  Batcher batcher(*model_, options_);
  const auto job = batcher.Submit(Make({3, 5, 4, 4, 1, 7, 2, 8, 3, 3}, 0), Output::kEmbedding);
  ASSERT_TRUE(batcher.Wait(*job, nullptr));
  ExpectRowsAlone(*job);
  batcher.Stop();
  std::lock_guard<std::mutex> lock(mu_);
  int64_t sequences = 0, tokens = 0;
  for (const BatchReport& b : batches_) {
    EXPECT_LE(b.tokens, 8);
    sequences += b.sequences;
    tokens += b.tokens;
  }
  EXPECT_EQ(sequences, 10);
  EXPECT_EQ(tokens, 40);
  EXPECT_GE(batches_.size(), 5u);  // 40 tokens, 8 a batch at most
}

TEST_F(BatcherTest, RequestsQueuedTogetherShareOneBatch) {
  setenv("PHASOR_TEST_BATCH_DELAY_MS", "300", 1);  // all five are queued before it forms
  Batcher batcher(*model_, options_);
  std::vector<std::shared_ptr<Job>> jobs;
  for (int k = 0; k < 5; ++k)
    jobs.push_back(batcher.Submit(Make({2 + k, 3}, 7 * k), Output::kEmbedding));
  for (const auto& job : jobs) {
    ASSERT_TRUE(batcher.Wait(*job, nullptr));
    ExpectRowsAlone(*job);
  }
  std::lock_guard<std::mutex> lock(mu_);
  ASSERT_EQ(batches_.size(), 1u);
  EXPECT_EQ(batches_[0].sequences, 10);
  EXPECT_EQ(batches_[0].tokens, (2 + 3 + 4 + 5 + 6) + 5 * 3);
}

TEST_F(BatcherTest, SequencesThatExactlyFillTheBudgetRunAsOneBatch) {
  options_.max_batch_tokens = 12;
  setenv("PHASOR_TEST_BATCH_DELAY_MS", "300", 1);  // all three are queued before it forms
  Batcher batcher(*model_, options_);
  const auto a = batcher.Submit(Make({5, 3}, 0), Output::kEmbedding);
  const auto b = batcher.Submit(Make({4}, 9), Output::kEmbedding);  // 5 + 3 + 4 = 12
  const auto c = batcher.Submit(Make({1}, 20), Output::kEmbedding);
  for (const auto& job : {a, b, c}) {
    ASSERT_TRUE(batcher.Wait(*job, nullptr));
    ExpectRowsAlone(*job);
  }
  std::lock_guard<std::mutex> lock(mu_);
  ASSERT_EQ(batches_.size(), 2u);
  EXPECT_EQ(batches_[0].sequences, 3);
  EXPECT_EQ(batches_[0].tokens, 12);
  EXPECT_EQ(batches_[1].tokens, 1);
}

TEST_F(BatcherTest, ABatchTheEngineRefusesFailsOnlyTheRequestThatHoldsIt) {
  setenv("PHASOR_TEST_BATCH_DELAY_MS", "300", 1);  // all are queued before the batch forms
  Batcher batcher(*model_, options_);
  std::vector<std::shared_ptr<Job>> good;
  for (int k = 0; k < 4; ++k)
    good.push_back(batcher.Submit(Make({3, 2}, 5 * k), Output::kEmbedding));
  Sequences bad = Make({3}, 0);
  bad.ids[1] = 999;  // outside the vocabulary of 50: the engine refuses the batch
  const auto refused = batcher.Submit(std::move(bad), Output::kEmbedding);
  good.push_back(batcher.Submit(Make({2}, 30), Output::kEmbedding));
  for (const auto& job : good) {
    ASSERT_TRUE(batcher.Wait(*job, nullptr)) << job->error();
    ExpectRowsAlone(*job);
  }
  EXPECT_FALSE(batcher.Wait(*refused, nullptr));
  EXPECT_NE(refused->error().find("999"), std::string::npos) << refused->error();
  std::lock_guard<std::mutex> lock(mu_);
  // The shared batch failed; each of its six requests then ran alone.
  ASSERT_EQ(batches_.size(), 7u);
  EXPECT_FALSE(batches_[0].completed);
  EXPECT_EQ(batches_[0].sequences, 10);
  int failed = 0;
  for (size_t i = 1; i < batches_.size(); ++i) failed += batches_[i].completed ? 0 : 1;
  EXPECT_EQ(failed, 1);
}

TEST_F(BatcherTest, ACancelledRequestIsNotComputed) {
  setenv("PHASOR_TEST_BATCH_DELAY_MS", "300", 1);
  Batcher batcher(*model_, options_);
  const auto gone = batcher.Submit(Make({6, 6}, 0), Output::kEmbedding);
  const auto kept = batcher.Submit(Make({4}, 3), Output::kEmbedding);
  EXPECT_FALSE(batcher.Wait(*gone, [] { return true; }));  // its client has left
  EXPECT_TRUE(gone->cancelled());
  ASSERT_TRUE(batcher.Wait(*kept, nullptr));
  ExpectRowsAlone(*kept);
  std::lock_guard<std::mutex> lock(mu_);
  ASSERT_EQ(batches_.size(), 1u);
  EXPECT_EQ(batches_[0].tokens, 4);
}

TEST_F(BatcherTest, StopFinishesWhatIsQueuedAndRefusesMore) {
  setenv("PHASOR_TEST_BATCH_DELAY_MS", "200", 1);
  auto batcher = std::make_unique<Batcher>(*model_, options_);
  std::vector<std::shared_ptr<Job>> jobs;
  for (int k = 0; k < 3; ++k) jobs.push_back(batcher->Submit(Make({3}, k), Output::kEmbedding));
  batcher->Stop();
  const auto late = batcher->Submit(Make({3}, 9), Output::kEmbedding);
  EXPECT_FALSE(batcher->Wait(*late, nullptr));
  EXPECT_EQ(late->error(), "the server is shutting down");
  for (const auto& job : jobs) {
    ASSERT_TRUE(batcher->Wait(*job, nullptr));
    ExpectRowsAlone(*job);
  }
  batcher.reset();  // joins
}

}  // namespace
}  // namespace phasor::serving

// EncodeOptions::cancelled: asked after every layer of every batch; once it
// says so, the call stops there with phasor::Cancelled and the model encodes
// as before.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "engine/output_file.h"
#include "engine/safetensors.h"
#include "models/config.h"
#include "models/phasor.h"
#include "models/toy.h"
#include "tests/support/toy_dir.h"

namespace phasor {
namespace {

constexpr int64_t kLayers = 3;

// A small model directory of the test's own: 3 layers, toy weights.
class CancelTest : public ::testing::Test {
 protected:
  testing::ToyDir toy_{testing::SmallToyConfig(50, 16, kLayers), "cancel"};
  const std::string& dir_ = toy_.path();
};

TEST_F(CancelTest, AskedAfterEveryLayerOfEveryBatch) {
  const Model model = Model::Load(dir_);
  const std::vector<int32_t> ids = {1, 2, 3, 4, 5, 6, 7, 8, 9};  // [3, 3]
  std::vector<float> out(ids.size() * 16);
  EncodeOptions o;
  o.batch_tokens = 3;  // a batch per sequence
  int asked = 0;
  o.cancelled = [&] { return ++asked < 0; };
  model.Encode(ids.data(), 3, 3, out.data(), o);
  EXPECT_EQ(asked, 3 * kLayers);
}

TEST_F(CancelTest, StopsWhereItIsAskedAndTheModelEncodesAsBefore) {
  const Model model = Model::Load(dir_);
  const std::vector<int32_t> ids = {1, 2, 3, 4, 5, 6, 7, 8, 9};  // [3, 3]
  std::vector<float> want(ids.size() * 16), out(ids.size() * 16, -1.0f);
  model.Encode(ids.data(), 3, 3, want.data());
  EncodeOptions o;
  o.batch_tokens = 3;
  int asked = 0;
  o.cancelled = [&] { return ++asked == kLayers + 2; };  // inside the second batch
  EXPECT_THROW(model.Encode(ids.data(), 3, 3, out.data(), o), Cancelled);
  EXPECT_EQ(asked, kLayers + 2);  // not asked again: nothing ran after it
  // The first batch's rows were written, the third's never.
  EXPECT_TRUE(std::equal(out.begin(), out.begin() + 3 * 16, want.begin()));
  EXPECT_TRUE(std::all_of(out.begin() + 6 * 16, out.end(), [](float v) { return v == -1.0f; }));
  model.Encode(ids.data(), 3, 3, out.data());
  EXPECT_EQ(out, want);
}

TEST_F(CancelTest, AFlagSetByAnotherThreadStopsAPackedCall) {
  const Model model = Model::Load(dir_);
  std::vector<int32_t> ids(400 * 8);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = 1 + static_cast<int32_t>(i % 49);
  std::vector<int64_t> offsets;
  for (int64_t b = 0; b <= 400; ++b) offsets.push_back(8 * b);
  std::vector<float> out(ids.size() * 16);
  std::atomic<bool> stop{false};
  std::atomic<int> asked{0};
  EncodeOptions o;
  o.batch_tokens = 8;
  o.cancelled = [&] {
    if (++asked == 5) {
      std::thread([&] { stop = true; }).join();  // another thread sets the flag
    }
    return stop.load();
  };
  EXPECT_THROW(model.EncodePacked(ids.data(), offsets.data(), 400, out.data(), o), Cancelled);
  EXPECT_EQ(asked.load(), 5);
}

}  // namespace
}  // namespace phasor

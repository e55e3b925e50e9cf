// Sharded checkpoints (model.safetensors.index.json and its shards) whose
// index lists an integer buffer, as many Hub checkpoints list
// embeddings.position_ids: the buffer is not a weight, so it is left out, yet
// checked to be where the index says, as every tensor is.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "engine/npy.h"
#include "models/phasor.h"
#include "models/tokens.h"
#include "tests/support/golden.h"
#include "tests/support/hf_copy.h"
#include "tests/support/max_error.h"

namespace phasor {
namespace {

// A copy of bert_sharded: three BF16 shards, the I64
// bert.embeddings.position_ids in the first, listed by the index.
class ShardedIndexTest : public testing::HfCopyTest {
 protected:
  void SetUp() override {
    CopyCase("bert_sharded");
    std::ifstream in(dir_ + "/model.safetensors.index.json");
    index_.assign(std::istreambuf_iterator<char>(in), {});
    ASSERT_NE(index_.find(kBufferLine), std::string::npos);
  }
  // The index as copied, with from replaced by to.
  void WriteIndex(const std::string& from, const std::string& to) {
    std::string text = index_;
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::ofstream(dir_ + "/model.safetensors.index.json") << text;
  }
  static constexpr const char* kBufferLine =
      R"("bert.embeddings.position_ids": "model-00001-of-00003.safetensors",)";
  std::string index_;
};

TEST_F(ShardedIndexTest, AListedIndexBufferLoadsAndMatchesTheReference) {
  const Model model = Model::Load(dir_);
  // The buffer is no tensor of the model: neither used nor reported unused.
  EXPECT_TRUE(model.load_warnings().empty())
      << (model.load_warnings().empty() ? "" : model.load_warnings()[0]);
  const TokenBatch tb = LoadTokens(dir_ + "/tokens.txt", false);
  const NpyArray want = ReadNpy(dir_ + "/expected.npy");  // the float64 reference's output
  const int64_t d = model.d_model();
  ASSERT_EQ(want.shape, (std::vector<int64_t>{tb.batch, tb.seq, d}));
  const std::vector<int32_t> ids = tb.Padded(model.pad_token_id().value_or(0));
  std::vector<float> got(static_cast<size_t>(tb.batch * tb.seq * d));
  EncodeOptions o;
  o.lengths = tb.lengths.data();
  model.Encode(ids.data(), tb.batch, tb.seq, got.data(), o);
  const testing::MaxError err = testing::RealTokenError(got.data(), want.data.data(), tb, d);
  EXPECT_TRUE(err <= testing::kGoldenOutputTol) << err;
}

TEST_F(ShardedIndexTest, ABufferTheIndexPutsInAnotherShardIsNamed) {
  WriteIndex(kBufferLine, R"("bert.embeddings.position_ids": "model-00002-of-00003.safetensors",)");
  ExpectLoadError(dir_ +
                  "/model-00001-of-00003.safetensors: tensor 'bert.embeddings.position_ids' is "
                  "not mapped to this file by " +
                  dir_ + "/model.safetensors.index.json");
}

TEST_F(ShardedIndexTest, ABufferNoShardHoldsIsNamed) {
  WriteIndex(kBufferLine,
             std::string(kBufferLine) +
                 R"("bert.embeddings.token_type_ids": "model-00002-of-00003.safetensors",)");
  ExpectLoadError(dir_ +
                  "/model.safetensors.index.json: tensor 'bert.embeddings.token_type_ids' is not "
                  "in model-00002-of-00003.safetensors");
}

TEST_F(ShardedIndexTest, ABufferTheIndexDoesNotListIsNamed) {
  WriteIndex(kBufferLine, "");
  ExpectLoadError("tensor 'bert.embeddings.position_ids' is not mapped to this file");
}

}  // namespace
}  // namespace phasor

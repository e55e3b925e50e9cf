// Token types (BERT's segments) on every surface: a tab in a tokens file marks
// a pair's segment 1 for a model with token types (the golden bert_pairs case
// of tests/data/make_hf_golden.py, its reference computed with each token's
// type), is white space for a model without them, and a type the model does
// not have is an error naming sequence and position.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "engine/npy.h"
#include "models/phasor.h"
#include "models/tokens.h"
#include "tests/support/error_of.h"
#include "tests/support/golden.h"
#include "tests/support/paths.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

std::string HfDir(const std::string& name) {
  return std::string(phasor::testing::kTestDataDir) + "/hf/" + name;
}

using testing::ErrorOf;

TEST(TokenTypesCliTest, ATabMarksSegmentOneAndMatchesTheReference) {
  const std::string dir = HfDir("bert_pairs");
  const std::string out = ::testing::TempDir() + "pairs.npy";
  const auto r = testing::RunPhasor("encode --model " + dir + " --tokens-file " + dir +
                                    "/tokens.txt --output " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const TokenBatch tb = LoadTokens(dir + "/tokens.txt", true);
  ASSERT_FALSE(tb.types.empty());
  const NpyArray got = ReadNpy(out), want = ReadNpy(dir + "/expected.npy");
  ASSERT_EQ(got.shape, want.shape);
  const testing::MaxError err =
      testing::RealTokenError(got.data.data(), want.data.data(), tb, want.shape[2]);
  EXPECT_TRUE(err <= testing::kGoldenOutputTol) << err;
  // Packed, pooled: the same rows.
  const auto p = testing::RunPhasor("encode --model " + dir + " --tokens-file " + dir +
                                    "/tokens.txt --pool cls --output " + out);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const NpyArray cls = ReadNpy(out);
  for (int64_t b = 0; b < tb.batch; ++b) {
    for (int64_t k = 0; k < want.shape[2]; ++k) {
      EXPECT_EQ(cls.data[b * want.shape[2] + k], got.data[b * tb.seq * want.shape[2] + k]);
    }
  }
}

TEST(TokenTypesCliTest, ThreeSegmentsAreAnErrorNamingTheLine) {
  const std::string file = ::testing::TempDir() + "three.txt";
  std::ofstream(file) << "5 6\t7\n8\t9\t10\n";
  const auto r = testing::RunPhasor("encode --model " + HfDir("bert_pairs") + " --tokens-file " +
                                    file + " --output " + ::testing::TempDir() + "x.npy");
  EXPECT_EQ(r.exit_code, 1);
  testing::ExpectOneErrorLine(r);
  EXPECT_NE(r.err.find(file + ": line 2 holds a second tab"), std::string::npos) << r.err;
}

// RoBERTa has one token type: a tab is white space, as are DistilBERT's.
TEST(TokenTypesCliTest, WithoutTokenTypesATabIsWhiteSpace) {
  for (const std::string name : {"roberta_bf16", "distilbert"}) {
    const std::string dir = HfDir(name);
    const std::string tabs = ::testing::TempDir() + "tabs.txt",
                      spaces = ::testing::TempDir() + "spaces.txt";
    std::ofstream(tabs) << "5 6\t7 8\n9\t10\t11\n";
    std::ofstream(spaces) << "5 6 7 8\n9 10 11\n";
    const std::string a = ::testing::TempDir() + "a.npy", b = ::testing::TempDir() + "b.npy";
    const auto r1 =
        testing::RunPhasor("encode --model " + dir + " --tokens-file " + tabs + " --output " + a);
    ASSERT_EQ(r1.exit_code, 0) << name << ": " << r1.err;
    const auto r2 =
        testing::RunPhasor("encode --model " + dir + " --tokens-file " + spaces + " --output " + b);
    ASSERT_EQ(r2.exit_code, 0) << name << ": " << r2.err;
    EXPECT_EQ(testing::ReadFile(a), testing::ReadFile(b)) << name;
  }
}

TEST(TokenTypesTest, TypeOneChangesTheRowsAndTypeZeroIsTheDefault) {
  const Model model = Model::Load(HfDir("bert_pairs"));
  EXPECT_EQ(model.token_types(), 2);
  const std::vector<int32_t> ids = {5, 6, 7, 8};
  const int64_t d = model.d_model();
  std::vector<float> none(4 * d), zeros(4 * d), pair(4 * d);
  model.Encode(ids.data(), 1, 4, none.data());
  const std::vector<int32_t> t0 = {0, 0, 0, 0}, t1 = {0, 0, 1, 1};
  EncodeOptions o;
  o.token_types = t0.data();
  model.Encode(ids.data(), 1, 4, zeros.data(), o);
  EXPECT_EQ(none, zeros);
  o.token_types = t1.data();
  model.Encode(ids.data(), 1, 4, pair.data(), o);
  EXPECT_NE(none, pair);
  // EncodePacked takes them laid out as its ids.
  const std::vector<int64_t> offsets = {0, 1, 4};
  std::vector<float> packed(4 * d);
  model.EncodePacked(ids.data(), offsets.data(), 2, packed.data(), o);
  std::vector<float> second(3 * d);
  EncodeOptions o2;
  o2.token_types = t1.data() + 1;
  model.Encode(ids.data() + 1, 1, 3, second.data(), o2);
  EXPECT_TRUE(std::equal(second.begin(), second.end(), packed.begin() + d));
}

TEST(TokenTypesTest, ATypeTheModelLacksIsNamed) {
  const Model bert = Model::Load(HfDir("bert_pairs"));
  const std::vector<int32_t> ids = {5, 6, 7, 8}, types = {0, 1, 2, 1};
  std::vector<float> out(4 * bert.d_model());
  EncodeOptions o;
  o.token_types = types.data();
  EXPECT_EQ(ErrorOf([&] { bert.Encode(ids.data(), 2, 2, out.data(), o); }),
            "token type 2 at sequence 1, position 0 is outside the model's token types [0, 2)");
  const std::vector<int64_t> offsets = {0, 3, 4};
  EXPECT_EQ(ErrorOf([&] { bert.EncodePacked(ids.data(), offsets.data(), 2, out.data(), o); }),
            "token type 2 at sequence 0, position 2 is outside the model's token types [0, 2)");
  const Model distil = Model::Load(HfDir("distilbert"));
  const std::vector<int32_t> ones = {0, 0, 0, 1};
  o.token_types = ones.data();
  std::vector<float> out2(4 * distil.d_model());
  EXPECT_EQ(ErrorOf([&] { distil.Encode(ids.data(), 1, 4, out2.data(), o); }),
            "token type 1 at sequence 0, position 3 is not 0, and the model has no token types");
  const std::vector<int32_t> negative = {0, -1, 0, 0};
  o.token_types = negative.data();
  EXPECT_NE(ErrorOf([&] {
              bert.Encode(ids.data(), 1, 4, out.data(), o);
            }).find("token type -1 at sequence 0, position 1"),
            std::string::npos);
}

}  // namespace
}  // namespace phasor

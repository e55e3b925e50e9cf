// Tests of the public API (models/phasor.h): the same results as the layers it
// wraps, the documented errors, and calls from several threads at once.
#include "models/phasor.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/safetensors.h"
#include "layers/sinusoidal.h"
#include "models/config.h"
#include "models/encoder.h"
#include "models/toy.h"
#include "tests/support/limits.h"

namespace {

using phasor::EncodeOptions;
using phasor::Error;
using phasor::Model;
using phasor::PeMode;
using phasor::PeOptions;
using phasor::PositionalEncoding;
using phasor::UsageError;

phasor::ModelConfig SmallConfig() {
  phasor::ModelConfig c = phasor::ToyConfig();
  c.vocab_size = 20;
  c.d_model = 16;
  c.n_heads = 2;
  c.n_layers = 2;
  c.d_ff = 32;
  c.positional.max_len = 8;
  return c;  // pad_token_id 0, as the toy model
}

// A model directory holding SmallConfig() and its toy weights.
std::string WriteSmallModel(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "phasor_api_" + name;
  mkdir(dir.c_str(), 0755);
  const phasor::ModelConfig c = SmallConfig();
  std::ofstream(dir + "/config.json") << phasor::ConfigToJson(c);
  phasor::SaveSafetensors(dir + "/model.safetensors", phasor::ToyWeights(c));
  return dir;
}

// What the wrapped Encoder writes for the same call.
std::vector<float> Reference(const std::vector<int32_t>& ids, int64_t batch, int64_t seq,
                             const int64_t* lengths, phasor::EncoderStage stage) {
  const phasor::ModelConfig c = SmallConfig();
  phasor::Encoder enc(c, phasor::ToyWeights(c));
  phasor::EncoderWorkspace ws = enc.MakeWorkspace(batch * seq);
  std::vector<float> out(static_cast<size_t>(batch * seq * c.d_model));
  enc.Forward({ids.data(), batch, seq, lengths}, stage, out.data(), ws);
  return out;
}

TEST(PublicApiTest, VersionIsTheHeaders) { EXPECT_STREQ(phasor::Version(), PHASOR_VERSION_STRING); }

TEST(PublicApiTest, EncodeMatchesTheEncoder) {
  const Model model = Model::Load(WriteSmallModel("match"));
  EXPECT_EQ(model.vocab_size(), 20);
  EXPECT_EQ(model.d_model(), 16);
  EXPECT_EQ(model.pad_token_id(), 0);
  EXPECT_EQ(model.position_offset(), 0);
  EXPECT_NE(model.config_json().find("\"d_ff\""), std::string::npos);

  const std::vector<int32_t> ids = {3, 14, 15, 9, 2, 6, 5, 0};  // [2, 4]; row 1 ends in a pad
  std::vector<float> out(2 * 4 * 16);
  model.Encode(ids.data(), 2, 4, out.data());
  EXPECT_EQ(out, Reference(ids, 2, 4, nullptr, phasor::EncoderStage::kFinal));

  const int64_t lengths[] = {2, 4};
  EncodeOptions options;
  options.lengths = lengths;
  model.Encode(ids.data(), 2, 4, out.data(), options);
  EXPECT_EQ(out, Reference(ids, 2, 4, lengths, phasor::EncoderStage::kFinal));

  options = EncodeOptions();
  options.embeddings_only = true;
  model.Encode(ids.data(), 2, 4, out.data(), options);
  std::vector<float> want = Reference(ids, 2, 4, nullptr, phasor::EncoderStage::kEmbeddings);
  std::fill(want.end() - 16, want.end(), 0.0f);  // the trailing pad id: padding, 0 at every stage
  EXPECT_EQ(out, want);

  // A smaller batch after a larger one reuses the activations and gives the same bits.
  std::vector<float> one(4 * 16);
  model.Encode(ids.data(), 1, 4, one.data());
  EXPECT_EQ(one, Reference(ids, 1, 4, nullptr, phasor::EncoderStage::kFinal));
}

// Packed sequences: each the bits of its padded rows (and of itself alone), in
// batches of any budget; pooled rows against means and maxima taken here in double.
TEST(PublicApiTest, EncodePackedAndPooled) {
  const Model model = Model::Load(WriteSmallModel("packed"));
  const int64_t d = 16;
  const std::vector<int32_t> packed = {3, 14, 15, 9, 2, 6, 5, 1, 7};  // lengths 4, 1, 4
  const std::vector<int64_t> offsets = {0, 4, 5, 9};
  const std::vector<int32_t> padded = {3, 14, 15, 9, 2, 0, 0, 0, 6, 5, 1, 7};  // [3, 4]
  std::vector<float> want(3 * 4 * d);
  model.Encode(padded.data(), 3, 4, want.data());
  for (int64_t budget : {0, 4, 5, 9}) {
    std::vector<float> got(9 * d, NAN);
    EncodeOptions o;
    o.batch_tokens = budget;
    model.EncodePacked(packed.data(), offsets.data(), 3, got.data(), o);
    for (int64_t b = 0; b < 3; ++b) {
      const int64_t n = offsets[b + 1] - offsets[b];
      EXPECT_TRUE(std::equal(got.begin() + offsets[b] * d, got.begin() + offsets[b + 1] * d,
                             want.begin() + b * 4 * d))
          << "sequence " << b << ", budget " << budget;
      std::vector<float> one(n * d);
      model.Encode(packed.data() + offsets[b], 1, n, one.data());
      EXPECT_TRUE(std::equal(one.begin(), one.end(), got.begin() + offsets[b] * d)) << b;
    }
  }
  for (phasor::Pooling pool :
       {phasor::Pooling::kMean, phasor::Pooling::kCls, phasor::Pooling::kMax}) {
    std::vector<float> pooled(3 * d);
    EncodeOptions o;
    o.pool = pool;
    model.EncodePacked(packed.data(), offsets.data(), 3, pooled.data(), o);
    for (int64_t b = 0; b < 3; ++b) {
      for (int64_t k = 0; k < d; ++k) {
        double sum = 0, max = -INFINITY;
        for (int64_t j = offsets[b]; j < offsets[b + 1]; ++j) {
          const double v = want[(b * 4 + j - offsets[b]) * d + k];
          sum += v;
          max = std::max(max, v);
        }
        const double expect = pool == phasor::Pooling::kMean  ? sum / (offsets[b + 1] - offsets[b])
                              : pool == phasor::Pooling::kCls ? want[b * 4 * d + k]
                                                              : max;
        EXPECT_NEAR(pooled[b * d + k], expect, 1e-6) << phasor::ToString(pool) << " " << b;
      }
    }
  }
  // A budget below the longest sequence is refused.
  EncodeOptions small;
  small.batch_tokens = 3;
  std::vector<float> out(9 * d);
  EXPECT_THROW(model.EncodePacked(packed.data(), offsets.data(), 3, out.data(), small), Error);
}

TEST(PublicApiTest, EncodeErrors) {
  const Model model = Model::Load(WriteSmallModel("errors"));
  std::vector<float> out(64);
  const std::vector<int32_t> bad = {3, 20};
  try {
    model.Encode(bad.data(), 1, 2, out.data());
    FAIL() << "no error for id 20";
  } catch (const UsageError& e) {
    FAIL() << "a bad id is bad data, not bad usage: " << e.what();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("20"), std::string::npos) << e.what();
  }
  const std::vector<int32_t> ids = {3, 14};
  EXPECT_THROW(model.Encode(ids.data(), -1, 2, out.data()), UsageError);
  EXPECT_THROW(model.Encode(nullptr, 1, 2, out.data()), UsageError);
  EXPECT_THROW(model.Encode(ids.data(), 1, 2, nullptr), UsageError);
  // No token, or a sequence of pad ids only: nothing to encode (models/input_rules.h).
  EXPECT_THROW(model.Encode(nullptr, 0, 2, nullptr), Error);
  const std::vector<int32_t> pads = {3, 14, 0, 0};
  const std::string pad_only =
      phasor::testing::ErrorOf([&] { model.Encode(pads.data(), 2, 2, out.data()); });
  EXPECT_NE(pad_only.find("sequence 1 holds only the pad id 0"), std::string::npos) << pad_only;
  const int64_t zero[] = {1, 0};
  EncodeOptions o;
  o.lengths = zero;
  EXPECT_NE(phasor::testing::ErrorOf([&] {
              model.Encode(ids.data(), 2, 1, out.data(), o);
            }).find("sequence 1 is empty"),
            std::string::npos);
  EXPECT_THROW(model.Encode(ids.data(), int64_t{1} << 40, int64_t{1} << 40, out.data()), Error);
  EXPECT_THROW(Model::Load(::testing::TempDir() + "phasor_api_no_such_model"), Error);
}

TEST(PublicApiTest, ConcurrentEncodeCallsAgree) {
  const Model model = Model::Load(WriteSmallModel("threads"));
  const std::vector<int32_t> ids = {3, 14, 15, 9, 2, 6, 5, 1};
  const std::vector<float> expected = Reference(ids, 2, 4, nullptr, phasor::EncoderStage::kFinal);
  std::vector<std::vector<float>> outs(4, std::vector<float>(expected.size()));
  std::vector<std::thread> threads;
  for (auto& out : outs) {
    threads.emplace_back([&model, &ids, &out] {
      for (int r = 0; r < 20; ++r) model.Encode(ids.data(), 2, 4, out.data());
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& out : outs) EXPECT_EQ(out, expected);
}

class PublicPeTest : public ::testing::TestWithParam<PeMode> {};

TEST_P(PublicPeTest, FillAndAddMatchTheLayer) {
  PeOptions o;
  o.d_model = 64;
  o.max_len = 1000;
  o.layout = phasor::PeLayout::kSplit;
  o.mode = GetParam();
  const PositionalEncoding pe(o);
  EXPECT_EQ(pe.d_model(), 64);
  const phasor::SinusoidalEncoding layer(
      phasor::SinusoidalOptions{o.d_model, o.base, o.layout, o.denominator, o.max_len, o.mode});
  const int64_t first = o.mode == PeMode::kCached ? 10 : 990;  // auto: across the table's end
  const int64_t n = o.mode == PeMode::kCached ? 990 : 700;
  std::vector<float> expected(static_cast<size_t>(n * 64));
  layer.Fill(first, n, expected.data());
  std::vector<float> rows(expected.size());
  pe.Fill(first, n, rows.data());
  EXPECT_EQ(rows, expected);
  // sin(1) at position 1, pair 0, in every mode.
  std::vector<float> row(64);
  pe.Fill(1, 1, row.data());
  EXPECT_NEAR(row[0], std::sin(1.0), 2e-6);

  std::vector<float> x(expected.size());
  for (size_t k = 0; k < x.size(); ++k) x[k] = 0.001f * static_cast<float>(k % 977);
  std::vector<float> sum = x;
  pe.Add(first, n, sum.data());
  for (size_t k = 0; k < x.size(); ++k) ASSERT_EQ(sum[k], x[k] + expected[k]) << k;
}

TEST_P(PublicPeTest, Errors) {
  PeOptions o;
  o.d_model = 8;
  o.max_len = 16;
  o.mode = GetParam();
  const PositionalEncoding pe(o);
  std::vector<float> x(8 * 32, 1.0f);
  EXPECT_THROW(pe.Fill(0, -1, x.data()), UsageError);
  EXPECT_THROW(pe.Add(0, 1, nullptr), UsageError);
  EXPECT_THROW(pe.Fill(-1, 1, x.data()), Error);
  EXPECT_NO_THROW(pe.Fill(0, 0, nullptr));
  if (GetParam() == PeMode::kCached) {
    EXPECT_THROW(pe.Add(8, 9, x.data()), Error);  // row 16 is past the table
    for (float v : x) ASSERT_EQ(v, 1.0f);         // untouched
  } else {
    EXPECT_NO_THROW(pe.Add(8, 24, x.data()));
  }
  o.d_model = 7;
  EXPECT_THROW(PositionalEncoding{o}, Error);
}

INSTANTIATE_TEST_SUITE_P(Modes, PublicPeTest,
                         ::testing::Values(PeMode::kCached, PeMode::kOnTheFly, PeMode::kAuto),
                         [](const auto& info) {
                           return std::string(phasor::ToString(info.param));
                         });

}  // namespace

// The public RoPE call equals the layer it wraps, bit for bit, and checks its arguments.
TEST(PhasorApiRopeTest, ApplyEqualsTheLayer) {
  phasor::RopeOptions o;
  o.d_head = 16;
  o.rotary_dim = 8;
  o.offset = 5;
  const phasor::RotaryEncoding api(o);
  const phasor::Rope layer(o);
  const int64_t batch = 2, seq = 7, d_model = 32, n_heads = 2;
  std::vector<float> a(batch * seq * 3 * d_model), b;
  for (size_t k = 0; k < a.size(); ++k) a[k] = static_cast<float>((k * 37) % 101) / 50.0f - 1.0f;
  b = a;
  api.Apply(a.data(), batch, seq, d_model, n_heads);
  layer.Apply(b.data(), batch, seq, d_model, n_heads);
  EXPECT_EQ(a, b);
  EXPECT_THROW(api.Apply(nullptr, batch, seq, d_model, n_heads), phasor::UsageError);
  EXPECT_THROW(api.Apply(a.data(), batch, seq, 48, n_heads), phasor::UsageError);
  o.rotary_dim = 7;
  EXPECT_THROW(phasor::RotaryEncoding bad(o), phasor::Error);
}

// FillTable's row at position p is what Apply does to a vector whose pairs are
// all (1, 0): two paths through the layer that must agree.
TEST(PhasorApiRopeTest, FillTableIsTheRotationOfOneZero) {
  for (const auto layout : {phasor::RopeLayout::kHalf, phasor::RopeLayout::kInterleaved}) {
    phasor::RopeOptions o;
    o.d_head = 16;
    o.rotary_dim = 12;
    o.layout = layout;
    o.offset = 1000;
    const phasor::RotaryEncoding rope(o);
    ASSERT_EQ(rope.rotary_dim(), 12);
    const int64_t seq = 9, r = 12, half = r / 2;
    std::vector<float> table(static_cast<size_t>(seq * r));
    rope.FillTable(1000, seq, table.data());
    // qkv [seq, 3·16], one head: q's pairs all (1, 0) in the layout's order.
    std::vector<float> qkv(static_cast<size_t>(seq * 48), 0.0f);
    for (int64_t j = 0; j < seq; ++j) {
      for (int64_t i = 0; i < half; ++i) {
        qkv[j * 48 + (layout == phasor::RopeLayout::kHalf ? i : 2 * i)] = 1.0f;
      }
    }
    rope.Apply(qkv.data(), 1, seq, 16, 1);
    for (int64_t j = 0; j < seq; ++j) {
      for (int64_t k = 0; k < r; ++k) {
        EXPECT_NEAR(table[j * r + k], qkv[j * 48 + k], 1e-6) << j << ", " << k;
      }
    }
    EXPECT_THROW(rope.FillTable(0, -1, table.data()), phasor::UsageError);
    EXPECT_THROW(rope.FillTable(0, 1, nullptr), phasor::UsageError);
  }
}

TEST(PhasorApiRopeTest, ParseRopeScaling) {
  const phasor::RopeScaling s = phasor::ParseRopeScaling(R"({"type": "yarn", "factor": 8})");
  EXPECT_EQ(s.type, phasor::RopeScalingType::kYarn);
  EXPECT_EQ(s.factor, 8.0);
  for (const char* bad : {R"({"type": "linear"})", R"({"type": "linear", "factor": 2, "x": 1})",
                          R"({"type": "none", "factor": 2})", R"([1])", "{", R"({"factor": 2})"}) {
    EXPECT_THROW(phasor::ParseRopeScaling(bad), phasor::Error) << bad;
  }
}

// Pieces of the random sequence, in any order, are the bits of one pass.
TEST(PhasorApiRandomSequenceTest, PiecesAreTheWhole) {
  for (const PeMode mode : {PeMode::kOnTheFly, PeMode::kCached, PeMode::kAuto}) {
    phasor::RandomSequenceOptions o;
    o.d_model = 32;
    o.vocab = 70;
    o.pe_mode = mode;
    o.max_len = mode == PeMode::kCached ? 1000 : 300;
    const phasor::RandomSequence s(o);
    std::vector<float> whole(1000 * 32), pieces(1000 * 32);
    s.Embed(0, 1000, whole.data());
    for (int64_t first : {700, 0, 333, 1}) {
      const int64_t end = first == 700 ? 1000 : first == 333 ? 700 : first == 1 ? 333 : 1;
      s.Embed(first, end - first, pieces.data() + first * 32);
    }
    EXPECT_EQ(whole, pieces) << phasor::ToString(mode);
    std::vector<int32_t> ids(5);
    s.TokenIds(995, 5, ids.data());
    for (int64_t j = 0; j < 5; ++j) {
      EXPECT_GE(ids[j], 0);
      EXPECT_LT(ids[j], 70);
    }
    EXPECT_THROW(s.Embed(-1, 3, whole.data()), UsageError);
    EXPECT_THROW(s.Embed(0, 3, nullptr), UsageError);
  }
  phasor::RandomSequenceOptions bad;
  bad.d_model = 7;
  EXPECT_THROW(phasor::RandomSequence{bad}, UsageError);
  bad.d_model = 8;
  bad.pe_mode = PeMode::kCached;
  bad.max_len = 10;
  const phasor::RandomSequence small(bad);
  std::vector<float> out(20 * 8);
  EXPECT_THROW(small.Embed(5, 10, out.data()), Error);  // past the cached table
}

// layers/spans: sequence spans that overlap, run backwards, leave the rows or
// claim more keys than rows are refused, by CheckSpans and by each layer that
// takes spans (embedding, attention, the encoder layer), before anything is
// read or written; spans in order, packed or with gaps or empty, are taken.
// Model::Encode and the corpus make their spans from checked offsets, so only a
// caller of the layers meets these errors.
#include "layers/spans.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/weights.h"
#include "layers/attention.h"
#include "layers/embedding.h"
#include "layers/encoder_layer.h"
#include "tests/support/error_of.h"

namespace phasor {
namespace {

using testing::ErrorOf;

constexpr int64_t kRows = 10;
constexpr int64_t kD = 8, kHeads = 2, kFf = 16, kVocab = 12;

struct SpansCase {
  const char* name;
  std::vector<int64_t> start, length, keys;  // keys empty: every row a key
  const char* error;                         // after "where: "; empty: taken
};

Spans SpansOf(const SpansCase& c) {
  return {c.start.data(), c.length.data(), static_cast<int64_t>(c.start.size()),
          c.keys.empty() ? nullptr : c.keys.data()};
}

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

// One encoder layer's tensors (its attention's under "self_attn.") and a
// token embedding, random.
Weights LayerWeights() {
  Weights w("test weights");
  w.Add("embedding.weight", {kVocab, kD}, Random(kVocab * kD, 1));
  w.Add("self_attn.in_proj_weight", {3 * kD, kD}, Random(3 * kD * kD, 2));
  w.Add("self_attn.in_proj_bias", {3 * kD}, Random(3 * kD, 3));
  w.Add("self_attn.out_proj.weight", {kD, kD}, Random(kD * kD, 4));
  w.Add("self_attn.out_proj.bias", {kD}, Random(kD, 5));
  w.Add("linear1.weight", {kFf, kD}, Random(kFf * kD, 6));
  w.Add("linear1.bias", {kFf}, Random(kFf, 7));
  w.Add("linear2.weight", {kD, kFf}, Random(kD * kFf, 8));
  w.Add("linear2.bias", {kD}, Random(kD, 9));
  for (const char* norm : {"norm1", "norm2"}) {
    w.Add(std::string(norm) + ".weight", {kD}, std::vector<float>(kD, 1.0f));
    w.Add(std::string(norm) + ".bias", {kD}, std::vector<float>(kD, 0.0f));
  }
  return w;
}

class SpansTest : public ::testing::TestWithParam<SpansCase> {};

TEST_P(SpansTest, CheckSpansRefusesWhatDoesNotFit) {
  const SpansCase& c = GetParam();
  const std::string error = ErrorOf([&] { CheckSpans(SpansOf(c), kRows, "here"); });
  EXPECT_EQ(error, *c.error ? std::string("here: ") + c.error : "");
}

// Each layer refuses the spans before writing a row: out keeps its canary.
TEST_P(SpansTest, EveryLayerTakingSpansChecksThem) {
  const SpansCase& c = GetParam();
  const std::string expected = *c.error ? c.error : "";
  const Weights w = LayerWeights();
  const std::vector<int32_t> ids(kRows, 3);
  const std::vector<float> x = Random(kRows * kD, 10);
  const float kCanary = 1234.5f;
  const auto ExpectUntouched = [&](const std::vector<float>& out, const char* layer) {
    if (*c.error) {
      EXPECT_EQ(out, std::vector<float>(kRows * kD, kCanary)) << layer;
    }
  };

  const Embedding embedding(w, {kVocab, kD, false, 0}, nullptr);
  std::vector<float> out(kRows * kD, kCanary);
  std::string error =
      ErrorOf([&] { embedding.ForwardSpans(ids.data(), kRows, SpansOf(c), out.data()); });
  EXPECT_EQ(error, *c.error ? "embedding: " + expected : "");
  ExpectUntouched(out, "embedding");

  const MultiHeadSelfAttention attention(w, "self_attn.", {kD, kHeads});
  AttentionWorkspace attention_ws(kRows, {kD, kHeads});
  error = ErrorOf([&] { attention.Attend(x.data(), kRows, SpansOf(c), attention_ws); });
  EXPECT_EQ(error, *c.error ? "attention: " + expected : "");

  EncoderLayerOptions o;
  o.d_model = kD;
  o.n_heads = kHeads;
  o.d_ff = kFf;
  const EncoderLayer layer(w, "", o);
  EncoderLayerWorkspace layer_ws(kRows, o);
  out.assign(kRows * kD, kCanary);
  error = ErrorOf([&] { layer.ForwardSpans(x.data(), kRows, SpansOf(c), out.data(), layer_ws); });
  EXPECT_EQ(error, *c.error ? "attention: " + expected : "");
  ExpectUntouched(out, "encoder layer");
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SpansTest,
    ::testing::Values(
        SpansCase{"Packed", {0, 3, 5}, {3, 2, 5}, {}, ""},
        SpansCase{"WithGapsAndAnEmptySequence", {0, 4, 4, 9}, {2, 0, 3, 1}, {}, ""},
        SpansCase{"PaddingKeys", {0, 5}, {5, 5}, {2, 5}, ""},
        SpansCase{"Overlapping",
                  {0, 2},
                  {3, 3},
                  {},
                  "sequence 1 at rows 2 .. 5 is out of order or outside the 10 rows"},
        SpansCase{"OutOfOrder",
                  {5, 0},
                  {2, 2},
                  {},
                  "sequence 1 at rows 0 .. 2 is out of order or outside the 10 rows"},
        SpansCase{"SameStartTwice",
                  {4, 4},
                  {1, 1},
                  {},
                  "sequence 1 at rows 4 .. 5 is out of order or outside the 10 rows"},
        SpansCase{"PastTheRows",
                  {0, 8},
                  {3, 3},
                  {},
                  "sequence 1 at rows 8 .. 11 is out of order or outside the 10 rows"},
        SpansCase{"StartPastTheRows",
                  {11},
                  {0},
                  {},
                  "sequence 0 at rows 11 .. 11 is out of order or outside the 10 rows"},
        SpansCase{"NegativeStart",
                  {-1},
                  {2},
                  {},
                  "sequence 0 at rows -1 .. 1 is out of order or outside the 10 rows"},
        SpansCase{"NegativeLength",
                  {0, 3},
                  {3, -1},
                  {},
                  "sequence 1 at rows 3 .. 2 is out of order or outside the 10 rows"},
        SpansCase{
            "MoreKeysThanRows", {0, 3}, {3, 3}, {3, 4}, "4 keys of sequence 1 are outside [0, 3]"},
        SpansCase{"NegativeKeys", {0}, {3}, {-1}, "-1 keys of sequence 0 are outside [0, 3]"}),
    [](const ::testing::TestParamInfo<SpansCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace phasor

// The bf16 and int8 encoders against PyTorch's float32 nn.TransformerEncoder on
// every golden case (tests/support/golden.h), on the active CPU target (ctest
// runs the suite again on each other target the machine has): each real token's output row must
// point the way float32's does (cosine similarity) and stay close in value. The float32 goldens
// come from PyTorch, not from phasor, so the bounds check the reduced products end to end.
// A line's rows are the same bits packed, padded, alone and on 1 or 2 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/cpu.h"
#include "engine/error.h"
#include "engine/kernels/gemm_bf16.h"
#include "engine/npy.h"
#include "engine/parallel.h"
#include "engine/safetensors.h"
#include "layers/linear.h"
#include "layers/precision.h"
#include "models/encoder.h"
#include "models/tokens.h"
#include "tests/support/golden.h"

namespace phasor {
namespace {

const char* const kCases[] = {"post_ln_relu",
                              "pre_ln_gelu_final_norm",
                              "split_half_minus_one",
                              "interleaved_half_minus_one",
                              "split_d_model",
                              "offset_scale",
                              "ragged_padding",
                              "d96_h6",
                              "learned",
                              "base_500",
                              "long_ragged_h64",
                              "key_tiles_h64",
                              "rope_half",
                              "rope_interleaved_partial",
                              "rope_yarn",
                              "rope_llama3"};

// What each precision promises, over every real token of a case: the minimum
// cosine similarity of its output row with PyTorch's, and the largest error of
// one value (the toy cases' outputs are LayerNorm'd: values of order 1).
struct Bound {
  Precision precision;
  double min_cosine;
  double max_abs;
};
constexpr Bound kBounds[] = {{Precision::kBf16, 0.9995, 0.05}, {Precision::kInt8, 0.999, 0.15}};

struct Accuracy {
  double min_cosine = 1.0;
  double max_abs = 0.0;
};

// got, want: [batch, seq, d]; only the real tokens of tb count.
Accuracy Compare(const std::vector<float>& got, const std::vector<float>& want,
                 const TokenBatch& tb, int64_t d) {
  Accuracy a;
  for (int64_t b = 0; b < tb.batch; ++b) {
    for (int64_t j = 0; j < tb.lengths[b]; ++j) {
      const int64_t row = (b * tb.seq + j) * d;
      long double dot = 0, gg = 0, ww = 0;
      for (int64_t k = 0; k < d; ++k) {
        const long double g = got[row + k], w = want[row + k];
        dot += g * w;
        gg += g * g;
        ww += w * w;
        a.max_abs = std::max(a.max_abs, static_cast<double>(std::fabs(g - w)));
      }
      // A NaN row must fail, not slip through a comparison.
      const double cosine = static_cast<double>(dot / std::sqrt(gg * ww));
      a.min_cosine = std::isnan(cosine) ? -2.0 : std::min(a.min_cosine, cosine);
      if (std::isnan(a.max_abs)) a.max_abs = INFINITY;
    }
  }
  return a;
}

class PrecisionParityTest : public ::testing::TestWithParam<const char*> {};

TEST_P(PrecisionParityTest, CloseToPyTorchFloat32) {
  const std::string name = GetParam();
  const std::string dir = testing::GoldenDir(name);
  const char* isa = IsaName(ActiveIsa());
  for (const Bound& bound : kBounds) {
    const char* precision = ToString(bound.precision);
    const auto enc = Encoder::Load(dir, std::nullopt, bound.precision);
    const ModelConfig& c = enc->config();
    const TokenBatch tb = LoadTokens(dir + "/tokens.txt");
    const NpyArray y = ReadNpy(dir + "/expected.npy");
    EncoderWorkspace ws = enc->MakeWorkspace(tb.batch * tb.seq);
    const std::vector<int32_t> ids = tb.Padded(c.pad_token_id.value_or(0));  // [batch, seq]
    std::vector<float> out(y.data.size()), out1(y.data.size());  // [batch, seq, d_model]
    SetNumThreads(1);
    enc->Forward({ids.data(), tb.batch, tb.seq, tb.lengths.data()}, EncoderStage::kFinal,
                 out1.data(), ws);
    SetNumThreads(2);
    enc->Forward({ids.data(), tb.batch, tb.seq, tb.lengths.data()}, EncoderStage::kFinal,
                 out.data(), ws);
    // Packed, every sequence's rows are the bits of its padded rows.
    std::vector<float> packed(tb.ids.size() * c.d_model);  // [tokens, d_model]
    enc->ForwardPacked({tb.ids.data(), tb.offsets.data(), tb.batch}, EncoderStage::kFinal,
                       packed.data(), ws);
    for (int64_t b = 0; b < tb.batch; ++b) {
      EXPECT_TRUE(std::equal(packed.begin() + tb.offsets[b] * c.d_model,
                             packed.begin() + tb.offsets[b + 1] * c.d_model,
                             out.begin() + b * tb.seq * c.d_model))
          << name << " " << precision << ": packed rows of sequence " << b;
    }
    // Each line alone: the bits it has in the batch.
    for (int64_t b = 0; b < tb.batch; ++b) {
      const int64_t offsets[2] = {0, tb.offsets[b + 1] - tb.offsets[b]};
      std::vector<float> alone(static_cast<size_t>(offsets[1] * c.d_model));  // [len, d_model]
      enc->ForwardPacked({tb.ids.data() + tb.offsets[b], offsets, 1}, EncoderStage::kFinal,
                         alone.data(), ws);
      EXPECT_TRUE(
          std::equal(alone.begin(), alone.end(), packed.begin() + tb.offsets[b] * c.d_model))
          << name << " " << precision << ": sequence " << b << " alone";
    }
    SetNumThreads(0);
    EXPECT_EQ(out, out1) << name << " " << precision << ": 1 and 2 threads differ";
    const Accuracy a = Compare(out, y.data, tb, c.d_model);
    EXPECT_GE(a.min_cosine, bound.min_cosine) << name << " " << precision;
    EXPECT_LE(a.max_abs, bound.max_abs) << name << " " << precision;
    // The reduced products are in effect: float32's own error is below this.
    EXPECT_GT(a.max_abs, testing::kGoldenOutputTol) << name << " " << precision;
    std::printf("precision %-4s %-8s %-26s min cosine %.6f, max abs %.3g\n", precision, isa,
                name.c_str(), a.min_cosine, a.max_abs);
  }
}

INSTANTIATE_TEST_SUITE_P(Golden, PrecisionParityTest, ::testing::ValuesIn(kCases));

// fp32 through LoadOptions is the float32 path: the golden tolerance holds.
TEST(PrecisionParity, Fp32IsTheFloat32Path) {
  const std::string dir = testing::GoldenDir("post_ln_relu");
  const auto enc = Encoder::Load(dir, std::nullopt, Precision::kFp32);
  EXPECT_EQ(enc->precision(), Precision::kFp32);
  testing::ExpectMatchesGolden("post_ln_relu");
}

// A model holds its weight products once, at their precision: about 4, 2 and 1
// bytes a parameter of the four products, plus the float32 tensors left.
TEST(PrecisionParity, WeightsAreHeldOnceAtTheirPrecision) {
  const std::string dir = testing::GoldenDir("post_ln_relu");
  const auto f = Encoder::Load(dir, std::nullopt, Precision::kFp32);
  const auto b = Encoder::Load(dir, std::nullopt, Precision::kBf16);
  const auto q = Encoder::Load(dir, std::nullopt, Precision::kInt8);
  const ModelConfig& c = f->config();
  const int64_t d = c.d_model, ff = c.d_ff;
  const int64_t products = c.n_layers * (4 * d * d + 2 * d * ff);  // parameters
  int64_t others = 0;                                              // float32 values still held
  for (const std::string& n : f->weights().Names()) {
    others += static_cast<int64_t>(f->weights().Get(n).data.size());
  }
  EXPECT_TRUE(f->weights().Released("layers.0.linear1.weight"));
  // Panels padded to 32 outputs, per-channel scales, biases. On amx, oneDNN's
  // blocked layouts pad outputs to 64 and k to 32 or 64: on this 32-wide toy
  // that nearly doubles them (a model 64 wide or more pays nothing), yet a
  // float32 copy kept beside would still exceed it.
  const double slack = ActiveIsa() == Isa::kAmx ? 2.0 : 1.10;
  EXPECT_GE(f->WeightBytes(), 4 * (products + others));
  EXPECT_LE(f->WeightBytes(), slack * 4 * (products + others));
  EXPECT_LE(b->WeightBytes(), slack * (2 * products + 4 * others));
  EXPECT_LE(q->WeightBytes(),
            slack * (products + 4 * others) + 16 * c.n_layers * (3 * d + d + ff + d));
  EXPECT_THROW(f->weights().Require("layers.0.linear1.weight", {ff, d}), Error);
}

// Writes every tensor of w to path as BF16 (the values must be bfloat16 already).
void SaveBf16Safetensors(const std::string& path, const Weights& w) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  std::string data;
  for (const std::string& name : w.Names()) {
    const Tensor& t = w.Get(name);
    const float* v = w.Floats(name);
    const size_t begin = data.size();
    for (int64_t i = 0; i < NumElements(t.shape); ++i) {
      const uint16_t bits = kernels::ToBf16(v[i]);
      data.push_back(static_cast<char>(bits & 0xff));
      data.push_back(static_cast<char>(bits >> 8));
    }
    header[name] = {{"dtype", "BF16"}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
  }
  const std::string text = header.dump();
  std::ofstream out(path, std::ios::binary);
  for (int k = 0; k < 8; ++k) out.put(static_cast<char>((text.size() >> (8 * k)) & 0xff));
  out << text << data;
}

// A model stored in BF16 is the model stored in float32 with the same (bfloat16)
// values: the same output bits at every precision. Its products reach bf16
// panels without a float32 copy of their weights.
TEST(PrecisionParity, Bf16FilesGiveTheSameBitsAsTheirFloat32Values) {
  const std::string golden = testing::GoldenDir("post_ln_relu");
  const std::string base = ::testing::TempDir() + "precision_bf16_file";
  const std::string f32 = base + "/f32", b16 = base + "/bf16";
  for (const std::string& dir : {f32, b16}) {
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(golden + "/config.json", dir + "/config.json",
                               std::filesystem::copy_options::overwrite_existing);
  }
  const Weights original = LoadSafetensors(golden + "/model.safetensors");
  Weights rounded(f32 + "/model.safetensors");
  for (const std::string& name : original.Names()) {
    const Tensor& t = original.Get(name);
    std::vector<float> v(t.data.begin(), t.data.end());
    for (float& x : v) x = kernels::FromBf16(kernels::ToBf16(x));
    rounded.Add(name, t.shape, std::move(v));
  }
  SaveSafetensors(f32 + "/model.safetensors", rounded);
  SaveBf16Safetensors(b16 + "/model.safetensors", rounded);

  const Weights kept = LoadSafetensors(b16 + "/model.safetensors");
  const std::string w1 = "layers.0.linear1.weight";
  const Shape shape = kept.Get(w1).shape;  // [d_ff, d_model]
  ASSERT_TRUE(kept.Get(w1).data.empty());
  ASSERT_NE(kept.RequireBf16(w1, shape), nullptr);
  const Linear linear(kept, w1, "layers.0.linear1.bias", shape[0], shape[1], Precision::kBf16);
  EXPECT_TRUE(kept.Get(w1).data.empty()) << "a float32 copy of a BF16 weight was made";
  EXPECT_EQ(LoadSafetensors(f32 + "/model.safetensors").RequireBf16(w1, shape), nullptr);

  for (Precision p : {Precision::kFp32, Precision::kBf16, Precision::kInt8}) {
    std::vector<float> out[2];
    int i = 0;
    for (const std::string& dir : {f32, b16}) {
      const auto enc = Encoder::Load(dir, std::nullopt, p);
      const ModelConfig& c = enc->config();
      const TokenBatch t = LoadTokens(golden + "/tokens.txt");
      EncoderWorkspace ws = enc->MakeWorkspace(t.batch * t.seq);
      out[i].resize(static_cast<size_t>(t.batch * t.seq * c.d_model));
      enc->Forward({t.ids.data(), t.batch, t.seq, t.lengths.data()}, EncoderStage::kFinal,
                   out[i].data(), ws);
      ++i;
    }
    EXPECT_EQ(out[0], out[1]) << ToString(p);
  }
}

TEST(PrecisionParity, UnknownPrecisionIsAnError) {
  EXPECT_THROW(ParsePrecision("fp16"), Error);
  EXPECT_THROW(ParsePrecision(""), Error);
  for (Precision p : {Precision::kFp32, Precision::kBf16, Precision::kInt8}) {
    EXPECT_EQ(ParsePrecision(ToString(p)), p);
  }
}

}  // namespace
}  // namespace phasor

// `phasor encode --precision` run as a user runs it: the three precisions,
// their JSON, and models whose weights a quantizer could trip on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/npy.h"
#include "engine/safetensors.h"
#include "engine/weights.h"
#include "tests/support/run.h"

namespace phasor {
namespace {

using testing::RunPhasor;

// A small model directory written by make-toy (d_model 16, d_ff 32, 1 layer).
std::string MakeSmallModel(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "precision_cli_" + name;
  const auto r = RunPhasor("make-toy --force --out " + dir +
                           " --vocab 20 --d-model 16 --n-heads 2 --n-layers 1 --d-ff 32");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir;
}

// Rewrites dir/model.safetensors with one tensor's values changed by edit.
template <class Edit>
void EditTensor(const std::string& dir, const std::string& name, Edit edit) {
  const Weights w = LoadSafetensors(dir + "/model.safetensors");
  Weights out(dir + "/model.safetensors");
  for (const std::string& n : w.Names()) {
    const Tensor& t = w.Get(n);
    std::vector<float> v(t.data.begin(), t.data.end());
    if (n == name) edit(v);
    out.Add(n, t.shape, std::move(v));
  }
  SaveSafetensors(dir + "/model.safetensors", out);
}

std::vector<float> Encode(const std::string& dir, const std::string& precision,
                          const std::string& tag, std::string* err = nullptr) {
  const std::string npy = ::testing::TempDir() + "precision_cli_" + tag + ".npy";
  const auto r = RunPhasor("encode --model " + dir + " --tokens \"1 2 3 4 5\" --precision " +
                           precision + " --output " + npy);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (err) *err = r.err;
  return ReadNpy(npy).data;
}

TEST(EncodePrecisionCliTest, UnknownPrecisionIsAUsageError) {
  for (const char* bad : {"fp16", "INT8", "\"\""}) {
    const auto r = RunPhasor(std::string("encode --tokens \"1 2\" --precision ") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    testing::ExpectOneErrorLine(r);
    EXPECT_NE(r.err.find("--precision"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("'fp32', 'bf16' or 'int8'"), std::string::npos) << r.err;
  }
}

// The JSON names the precision; the weights shrink about 2x and 4x.
TEST(EncodePrecisionCliTest, JsonCarriesPrecisionAndWeightBytes) {
  int64_t bytes[3] = {};
  const char* names[3] = {"fp32", "bf16", "int8"};
  for (int i = 0; i < 3; ++i) {
    const auto r =
        RunPhasor(std::string("encode --tokens \"1 2 3\" --json --precision ") + names[i]);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["precision"], names[i]);
    bytes[i] = j["weight_bytes"].get<int64_t>();
    EXPECT_GT(j["peak_rss_bytes"].get<int64_t>(), bytes[i]);
  }
  // The toy model's products hold most of its parameters; its embedding
  // (1000 x 256) stays float32 in every precision.
  EXPECT_LT(bytes[1], 0.7 * bytes[0]);
  EXPECT_LT(bytes[2], 0.8 * bytes[1]);
}

// Default and fp32 are the same run; bf16 and int8 are close to it.
TEST(EncodePrecisionCliTest, ReducedPrecisionsStayCloseToFloat32) {
  const std::string dir = MakeSmallModel("close");
  const std::vector<float> f = Encode(dir, "fp32", "close_fp32");
  for (const char* p : {"bf16", "int8"}) {
    const std::vector<float> g = Encode(dir, p, std::string("close_") + p);
    ASSERT_EQ(g.size(), f.size());
    double max_abs = 0;
    for (size_t i = 0; i < f.size(); ++i)
      max_abs = std::max<double>(max_abs, std::fabs(g[i] - f[i]));
    EXPECT_LT(max_abs, 0.1) << p;
    EXPECT_GT(max_abs, 0.0) << p << ": the same bits as fp32";
  }
}

// NaN in a weight product: the same warning as fp32, a run that completes, and
// NaN where float32 has NaN; no crash in the quantizer.
TEST(EncodePrecisionCliTest, NonFiniteWeightsWarnAndPropagate) {
  const std::string dir = MakeSmallModel("nan");
  EditTensor(dir, "layers.0.linear2.weight",
             [](std::vector<float>& v) { v[5] = std::numeric_limits<float>::quiet_NaN(); });
  std::string fp32_err;
  const std::vector<float> f = Encode(dir, "fp32", "nan_fp32", &fp32_err);
  EXPECT_NE(fp32_err.find("phasor: warning:"), std::string::npos) << fp32_err;
  ASSERT_TRUE(std::any_of(f.begin(), f.end(), [](float v) { return std::isnan(v); }));
  for (const char* p : {"bf16", "int8"}) {
    std::string err;
    const std::vector<float> g = Encode(dir, p, std::string("nan_") + p, &err);
    // The same first line: the warning (the second names the file written).
    EXPECT_EQ(err.substr(0, err.find('\n')), fp32_err.substr(0, fp32_err.find('\n'))) << p;
    ASSERT_EQ(g.size(), f.size());
    for (size_t i = 0; i < f.size(); ++i) {
      if (std::isnan(f[i])) {
        EXPECT_TRUE(std::isnan(g[i])) << p << " value " << i;
      }
    }
  }
}

// An all-zero output channel (scale 0) and an all-zero layer: finite outputs,
// close to float32's.
TEST(EncodePrecisionCliTest, ZeroChannelsQuantizeToZero) {
  const std::string dir = MakeSmallModel("zero");
  EditTensor(dir, "layers.0.linear1.weight", [](std::vector<float>& v) {
    for (int k = 0; k < 16; ++k) v[3 * 16 + k] = 0.0f;  // output channel 3 of [32, 16]
  });
  EditTensor(dir, "layers.0.linear2.weight", [](std::vector<float>& v) {
    std::fill(v.begin(), v.end(), 0.0f);  // linear2 adds its bias alone
  });
  const std::vector<float> f = Encode(dir, "fp32", "zero_fp32");
  const std::vector<float> g = Encode(dir, "int8", "zero_int8");
  ASSERT_EQ(g.size(), f.size());
  for (size_t i = 0; i < f.size(); ++i) {
    ASSERT_TRUE(std::isfinite(g[i])) << i;
    EXPECT_NEAR(g[i], f[i], 0.1) << i;
  }
}

}  // namespace
}  // namespace phasor

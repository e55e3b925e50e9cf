// The rotary angles as a load option (RopeAngles): they reach every rotary
// layer, local layers with their own base included, and nothing else.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "models/encoder.h"
#include "models/toy.h"

namespace phasor {
namespace {

// A small toy encoder with RoPE at base `base`, its first token at position
// 30,000 (where float32 angles are off by about 1e-3 rad); local: every layer
// local (a window of every key) with base 10,000.
ModelConfig RotaryConfig(double base, bool local, RopeAngles angles) {
  ModelConfig c = ToyConfig();
  c.d_model = 64;
  c.n_heads = 2;  // heads of 32
  c.n_layers = 2;
  c.d_ff = 128;
  c.positional.kind = PositionalKind::kRope;
  c.positional.base = base;
  c.positional.offset = 30000;
  c.positional.mode = PeMode::kOnTheFly;
  c.positional.rope_angles = angles;
  if (local) {
    c.parts.local.layers = {0, 1};
    c.parts.local.window = KeyWindow::Full();
    c.parts.local.base = 10000.0;
  }
  return c;
}

// The final hidden states of 12 tokens, [12, d_model].
std::vector<float> Encode(const ModelConfig& c) {
  const Encoder enc(c, ToyWeights(c));
  std::vector<int32_t> ids(12);
  for (int32_t j = 0; j < 12; ++j) ids[j] = 5 + 37 * j;
  EncoderWorkspace ws = enc.MakeWorkspace(12);
  std::vector<float> out(static_cast<size_t>(12 * c.d_model));
  enc.Forward({ids.data(), 1, 12}, EncoderStage::kFinal, out.data(), ws);
  return out;
}

double MaxDiff(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i)
    d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  return d;
}

TEST(RopeAnglesModelTest, LocalLayersFollowTheSwitchWithTheirOwnBase) {
  // Every layer local at base 10,000 is the model of global base 10,000: in
  // library mode too, if the local rotation takes the switch.
  const std::vector<float> local_library = Encode(RotaryConfig(160000, true, RopeAngles::kLibrary));
  const std::vector<float> global_library =
      Encode(RotaryConfig(10000, false, RopeAngles::kLibrary));
  const std::vector<float> local_exact = Encode(RotaryConfig(160000, true, RopeAngles::kExact));
  EXPECT_LT(MaxDiff(local_library, global_library), 1e-6);
  EXPECT_GT(MaxDiff(local_library, local_exact), 1e-5);
}

TEST(RopeAnglesModelTest, GlobalLayersFollowTheSwitch) {
  const std::vector<float> library = Encode(RotaryConfig(160000, false, RopeAngles::kLibrary));
  const std::vector<float> exact = Encode(RotaryConfig(160000, false, RopeAngles::kExact));
  EXPECT_GT(MaxDiff(library, exact), 1e-5);
}

TEST(RopeAnglesModelTest, AModelWithoutRotaryPositionsIsTheSame) {
  ModelConfig c = ToyConfig();
  c.n_layers = 1;
  c.positional.rope_angles = RopeAngles::kLibrary;
  const std::vector<float> library = Encode(c);
  c.positional.rope_angles = RopeAngles::kExact;
  const std::vector<float> exact = Encode(c);
  EXPECT_EQ(std::memcmp(library.data(), exact.data(), library.size() * sizeof(float)), 0);
}

}  // namespace
}  // namespace phasor

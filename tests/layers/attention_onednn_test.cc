// layers/attention on the amx target at bf16 and int8, its products through
// oneDNN (engine/kernels/onednn_attention.h): a sequence gives the same bits
// alone as in a ragged batch (many short sequences, whose padded blocks grow
// the workspace's room, and long ones over several key blocks), for 1 and 3
// threads, also from a workspace made while another target was chosen (and
// the avx512 target's from one made on amx); and
// the route is the one taken (its outputs are not the avx512 target's bits).
// Against the naive definition: AttentionAtBf16Test (ctest phasor_tests_amx).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/cpu.h"
#include "engine/parallel.h"
#include "layers/attention.h"
#include "tests/support/kernel_test_util.h"

namespace phasor {
namespace {

Weights AttentionWeights(int64_t d) {
  Weights w("test weights");
  const float a = 2.0f / std::sqrt(static_cast<float>(d));
  w.Add("in_proj_weight", {3 * d, d}, testing::Random(3 * d * d, 1, -a, a));
  w.Add("in_proj_bias", {3 * d}, testing::Random(3 * d, 2, -0.2f, 0.2f));
  w.Add("out_proj.weight", {d, d}, testing::Random(d * d, 3, -a, a));
  w.Add("out_proj.bias", {d}, testing::Random(d, 4, -0.2f, 0.2f));
  return w;
}

TEST(AttentionOnednnTest, ASequenceAloneGivesItsBitsInAnyBatchAndThreadCount) {
  SKIP_WITHOUT_AMX_TARGET();
  testing::IsaGuard guard;
  const int64_t d = 128, seq = 300;
  const std::vector<int64_t> lengths = {300, 33, 1, 0, 129, 40, 32, 32, 40, 35, 31, 257};
  const int64_t batch = static_cast<int64_t>(lengths.size()), tokens = batch * seq;
  const Weights w = AttentionWeights(d);
  const std::vector<float> x = testing::Random(tokens * d, 7, -1.5f, 1.5f);
  for (Precision precision : {Precision::kBf16, Precision::kInt8}) {
    SCOPED_TRACE(ToString(precision));
    const AttentionOptions options{d, 2, nullptr, precision};
    SetIsa(Isa::kAvx512);
    AttentionWorkspace made_before(tokens, options, 3);  // no room for oneDNN's blocks yet
    const MultiHeadSelfAttention avx512_layer(w, "", options);
    std::vector<float> avx512(x.size());
    avx512_layer.Forward(x.data(), {batch, seq, lengths.data()}, avx512.data(), made_before);
    SetIsa(Isa::kAmx);
    const MultiHeadSelfAttention attn(w, "", options);
    AttentionWorkspace ws(tokens, options, 3);
    std::vector<float> one(x.size()), three(x.size()), alone(x.size(), NAN);
    SetNumThreads(1);
    attn.Forward(x.data(), {batch, seq, lengths.data()}, one.data(), ws);
    SetNumThreads(3);
    attn.Forward(x.data(), {batch, seq, lengths.data()}, three.data(), made_before);
    bool differs = false;
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t at = b * seq * d, n = lengths[b] * d;
      attn.Forward(x.data() + at, {1, lengths[b], nullptr}, alone.data() + at, ws);
      EXPECT_EQ(0, std::memcmp(one.data() + at, three.data() + at, n * sizeof(float)))
          << "sequence " << b << ": 3 threads";
      EXPECT_EQ(0, std::memcmp(one.data() + at, alone.data() + at, n * sizeof(float)))
          << "sequence " << b << " alone";
      if (lengths[b] >= MultiHeadSelfAttention::kMinBf16Keys) {
        differs = differs || std::memcmp(one.data() + at, avx512.data() + at, n * sizeof(float));
      }
    }
    SetNumThreads(0);
    // A workspace made while amx was chosen serves the avx512 target later.
    SetIsa(Isa::kAvx512);
    std::vector<float> later(x.size());
    avx512_layer.Forward(x.data(), {batch, seq, lengths.data()}, later.data(), ws);
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t at = b * seq * d, n = lengths[b] * d;
      EXPECT_EQ(0, std::memcmp(later.data() + at, avx512.data() + at, n * sizeof(float)))
          << "sequence " << b << ": avx512 from a workspace made on amx";
    }
    // The layer's int8 weight products are the same bits on both targets:
    // a difference is the attention products'.
    EXPECT_TRUE(differs) << "the amx target's attention gave the avx512 target's bits";
  }
}

}  // namespace
}  // namespace phasor

// Every fast kernel in engine/kernels against its naive twin.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "engine/kernels/activations.h"
#include "engine/kernels/attention.h"
#include "engine/kernels/elementwise.h"
#include "engine/kernels/gemm.h"
#include "engine/kernels/kernel_table.h"
#include "engine/kernels/layer_norm.h"
#include "engine/kernels/vector_math.h"
#include "engine/parallel.h"
#include "tests/support/kernel_test_util.h"
#include "tests/support/reference_kernels.h"

namespace phasor::kernels {
namespace {

using phasor::testing::PanelsOf;
using phasor::testing::Random;
using phasor::testing::ThreadsGuard;

using phasor::testing::ReferenceLinear;

// Tolerances, once for the file: |fast - naive| <= kAbsTol + kRelTol·|naive|.
// Values are O(1); float accumulation over up to 2048 terms stays well inside.
constexpr double kAbsTol = 2e-6;
constexpr double kRelTol = 2e-5;

// Largest violation of the tolerance (<= 0: all values pass); a NaN or an
// infinity on either side fails at once, with its position.
void ExpectClose(const std::vector<float>& got, const std::vector<float>& want,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0.0;
  size_t worst_at = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(std::isfinite(got[i]) && std::isfinite(want[i]))
        << what << " at " << i << ": got " << got[i] << ", want " << want[i];
    const double excess =
        std::abs(double{got[i]} - want[i]) - (kAbsTol + kRelTol * std::abs(want[i]));
    if (excess > worst) {
      worst = excess;
      worst_at = i;
    }
  }
  EXPECT_LE(worst, 0.0) << what << ": at " << worst_at << " got " << got[worst_at] << ", want "
                        << want[worst_at];
}

// --- LayerNorm --------------------------------------------------------------

class LayerNormKernelTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(LayerNormKernelTest, MatchesNaive) {
  const int64_t n = GetParam(), rows = 9;
  std::vector<float> x = Random(rows * n, 7, -3.0f, 3.0f);
  for (int64_t j = 0; j < n; ++j) x[n + j] += 1000.0f;  // a large offset: needs two passes
  const std::vector<float> gamma = Random(n, 8, 0.5f, 1.5f), beta = Random(n, 9);
  std::vector<float> y(rows * n), ref(rows * n);
  LayerNorm(x.data(), rows, n, {gamma.data(), beta.data(), 1e-5f}, y.data());
  LayerNormNaive(x.data(), rows, n, {gamma.data(), beta.data(), 1e-5f}, ref.data());
  ExpectClose(y, ref, "LayerNorm");
  std::vector<float> in_place = x;
  LayerNorm(in_place.data(), rows, n, {gamma.data(), beta.data(), 1e-5f}, in_place.data());
  EXPECT_EQ(in_place, y);
}

TEST_P(LayerNormKernelTest, AddLayerNormMatchesNaiveAndMayRunInPlace) {
  const int64_t n = GetParam(), rows = 5;
  const std::vector<float> x = Random(rows * n, 10), r = Random(rows * n, 11);
  const std::vector<float> gamma = Random(n, 12, 0.5f, 1.5f), beta = Random(n, 13);
  std::vector<float> y(rows * n), ref(rows * n);
  AddLayerNorm(x.data(), r.data(), rows, n, {gamma.data(), beta.data(), 1e-5f}, y.data());
  AddLayerNormNaive(x.data(), r.data(), rows, n, {gamma.data(), beta.data(), 1e-5f}, ref.data());
  ExpectClose(y, ref, "AddLayerNorm");
  std::vector<float> into_x = x, into_r = r;
  AddLayerNorm(into_x.data(), r.data(), rows, n, {gamma.data(), beta.data(), 1e-5f}, into_x.data());
  AddLayerNorm(x.data(), into_r.data(), rows, n, {gamma.data(), beta.data(), 1e-5f}, into_r.data());
  EXPECT_EQ(into_x, y);
  EXPECT_EQ(into_r, y);
}

INSTANTIATE_TEST_SUITE_P(Widths, LayerNormKernelTest, ::testing::Values(1, 7, 96, 512, 1000));

TEST(LayerNormKernelTest, ConstantRowGivesBeta) {
  const int64_t n = 96;
  const std::vector<float> x(n, 0.3f), gamma = Random(n, 14), beta = Random(n, 15);
  std::vector<float> y(n);
  LayerNorm(x.data(), 1, n, {gamma.data(), beta.data(), 1e-5f}, y.data());
  ExpectClose(y, beta, "constant row");
}

// --- Activations ------------------------------------------------------------

TEST(ActivationKernelTest, GeluMatchesNaiveOverItsRange) {
  std::vector<float> x;
  for (int i = -2400; i <= 2400; ++i) x.push_back(i * 0.005f);  // [-12, 12]
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e4f, -1e4f, 3.4e38f, -3.4e38f}) x.push_back(v);
  std::vector<float> y(x.size()), ref(x.size());
  Gelu(x.data(), static_cast<int64_t>(x.size()), y.data());
  GeluNaive(x.data(), static_cast<int64_t>(x.size()), ref.data());
  ExpectClose(y, ref, "Gelu");
  EXPECT_FLOAT_EQ(y[2400], 0.0f);  // gelu(0)
}

// The tanh form of GELU and SiLU against their definitions in double, over the
// range and at the extremes (where tanh and exp saturate).
TEST(ActivationKernelTest, GeluTanhAndSiluMatchNaiveOverTheirRange) {
  std::vector<float> x;
  for (int i = -2400; i <= 2400; ++i) x.push_back(i * 0.005f);  // [-12, 12]
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e4f, -1e4f, 88.0f, -88.0f, -100.0f}) {
    x.push_back(v);
  }
  for (Activation act : {Activation::kGeluTanh, Activation::kSilu}) {
    std::vector<float> y(x.size()), ref(x.size());
    Activate(act, x.data(), static_cast<int64_t>(x.size()), y.data());
    ActivateNaive(act, x.data(), static_cast<int64_t>(x.size()), ref.data());
    ExpectClose(y, ref, ToString(act));
    EXPECT_EQ(y[2400], 0.0f) << ToString(act);  // act(0)
  }
  // Known values: gelu_tanh(1) = 0.841192, silu(1) = 0.731059, silu(-1) = -0.268941.
  float v[3] = {1.0f, 1.0f, -1.0f}, g, s[2];
  GeluTanh(v, 1, &g);
  Silu(v + 1, 2, s);
  EXPECT_NEAR(g, 0.8411920, 1e-6);
  EXPECT_NEAR(s[0], 0.7310586, 1e-6);
  EXPECT_NEAR(s[1], -0.2689414, 1e-6);
}

TEST(ActivationKernelTest, ReluAndIdentityAreExact) {
  const std::vector<float> x = Random(1001, 16);
  std::vector<float> y(x.size()), ref(x.size());
  Relu(x.data(), 1001, y.data());
  ReluNaive(x.data(), 1001, ref.data());
  EXPECT_EQ(y, ref);
  Activate(Activation::kIdentity, x.data(), 1001, y.data());
  EXPECT_EQ(y, x);
  for (Activation act : {Activation::kIdentity, Activation::kRelu, Activation::kGelu}) {
    Activate(act, x.data(), 1001, y.data());
    ActivateNaive(act, x.data(), 1001, ref.data());
    ExpectClose(y, ref, ToString(act));
  }
}

// --- Attention tile ---------------------------------------------------------

using AttentionShape = std::tuple<int64_t, int64_t, int64_t>;  // n_q, n_keys, d_head

class AttentionTileKernelTest : public ::testing::TestWithParam<AttentionShape> {};

// Strided q, k, v, out as in the layer: head columns of wider rows.
struct StridedCase {
  int64_t n_q, n_keys, d_head, ld;
  std::vector<float> q, k, v;
  AttentionArgs Args(float* out) const {
    AttentionArgs a;
    a.q = q.data() + 3;  // not at the start of a row: an arbitrary head offset
    a.k = k.data() + 3;
    a.v = v.data() + 3;
    a.out = out + 1;
    a.ldq = a.ldk = a.ldv = ld;
    a.ldo = d_head + 2;
    a.n_q = n_q;
    a.n_keys = n_keys;
    a.d_head = d_head;
    a.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d_head)));
    return a;
  }
  int64_t OutFloats() const { return n_q * (d_head + 2) + 1; }
};

StridedCase MakeCase(int64_t n_q, int64_t n_keys, int64_t d_head, uint32_t seed) {
  const int64_t ld = d_head + 5;
  return {n_q,
          n_keys,
          d_head,
          ld,
          Random(n_q * ld, seed, -2.0f, 2.0f),
          Random(std::max<int64_t>(n_keys, 1) * ld, seed + 1, -2.0f, 2.0f),
          Random(std::max<int64_t>(n_keys, 1) * ld, seed + 2)};
}

float* ScratchPointer(std::vector<float>& storage, int64_t floats, int64_t slot) {
  storage.resize(static_cast<size_t>((floats + 16) * (slot + 1) + 16));
  float* p = storage.data();
  while (reinterpret_cast<uintptr_t>(p) % 64 != 0) ++p;
  return p + slot * ((floats + 15) / 16 * 16);
}

TEST_P(AttentionTileKernelTest, MatchesFullSoftmaxInDouble) {
  const auto [n_q, n_keys, d_head] = GetParam();
  const StridedCase c = MakeCase(n_q, n_keys, d_head, 21);
  std::vector<float> out(c.OutFloats(), NAN), ref(c.OutFloats(), NAN), storage;
  AttentionTile(c.Args(out.data()),
                ScratchPointer(storage, AttentionScratchFloats(n_q, d_head), 0));
  AttentionNaive(c.Args(ref.data()));
  for (int64_t i = 0; i < n_q; ++i) {  // compare the written block only
    for (int64_t j = 0; j < d_head; ++j) {
      const size_t at = static_cast<size_t>(1 + i * (d_head + 2) + j);
      ASSERT_FALSE(std::isnan(out[at])) << i << "," << j;
      EXPECT_NEAR(out[at], ref[at], kAbsTol + kRelTol * std::abs(ref[at])) << i << "," << j;
      if (n_keys == 0) {
        EXPECT_EQ(out[at], 0.0f);
      }
    }
  }
  EXPECT_TRUE(std::isnan(out[0]));  // nothing written outside the block
}

TEST_P(AttentionTileKernelTest, SameResultInAnyAlignedScratch) {
  const auto [n_q, n_keys, d_head] = GetParam();
  const StridedCase c = MakeCase(n_q, n_keys, d_head, 22);
  const int64_t floats = AttentionScratchFloats(n_q, d_head);
  std::vector<float> out1(c.OutFloats()), out2(c.OutFloats()), storage;
  AttentionTile(c.Args(out1.data()), ScratchPointer(storage, floats, 0));
  std::vector<float> garbage = Random(static_cast<int64_t>(storage.size()), 23, -1e3f, 1e3f);
  storage = garbage;
  AttentionTile(c.Args(out2.data()), ScratchPointer(storage, floats, 3));
  EXPECT_EQ(out1, out2);
}

// Keys packed once (PackKeyPanels) give the same bits as keys packed inside
// the tile, and the panels hold key j's column c at [j / 32][c][j % 32].
TEST_P(AttentionTileKernelTest, PrePackedKeysGiveTheSameBits) {
  const auto [n_q, n_keys, d_head] = GetParam();
  const StridedCase c = MakeCase(n_q, n_keys, d_head, 24);
  std::vector<float> panels(static_cast<size_t>(KeyPanelFloats(n_keys, d_head)), NAN);
  ASSERT_EQ(static_cast<int64_t>(panels.size()), (n_keys + 31) / 32 * 32 * d_head);
  float unused[2];
  const float* k = c.Args(unused).k;  // [n_keys, d_head], row stride c.ld
  PackKeyPanels(k, c.ld, n_keys, d_head, panels.data());
  for (int64_t j = 0; j < (n_keys + 31) / 32 * 32; ++j) {
    for (int64_t col = 0; col < d_head; ++col) {
      const float want = j < n_keys ? k[j * c.ld + col] : 0.0f;
      ASSERT_EQ(panels[static_cast<size_t>(j / 32 * d_head * 32 + col * 32 + j % 32)], want)
          << j << "," << col;
    }
  }
  std::vector<float> out1(c.OutFloats()), out2(c.OutFloats()), storage;
  const int64_t floats = AttentionScratchFloats(n_q, d_head);
  AttentionTile(c.Args(out1.data()), ScratchPointer(storage, floats, 0));
  AttentionArgs a = c.Args(out2.data());
  a.k = nullptr;  // not read
  a.k_panels = panels.data();
  AttentionTile(a, ScratchPointer(storage, floats, 0));
  EXPECT_EQ(out1, out2);
}

INSTANTIATE_TEST_SUITE_P(Shapes, AttentionTileKernelTest,
                         ::testing::Values(AttentionShape{1, 1, 16}, AttentionShape{1, 300, 16},
                                           AttentionShape{37, 0, 16},  // every key masked
                                           AttentionShape{64, 127, 16}, AttentionShape{64, 128, 16},
                                           AttentionShape{64, 129, 64}, AttentionShape{5, 300, 1},
                                           AttentionShape{17, 1000, 64},
                                           // both sides of a key tile (512 keys)
                                           AttentionShape{9, 511, 16}, AttentionShape{9, 512, 16},
                                           AttentionShape{9, 513, 64}));

TEST(AttentionTileKernelTest, LargeScoresStayFinite) {
  StridedCase c = MakeCase(4, 200, 8, 24);
  for (float& v : c.q) v *= 300.0f;  // scores of order 1e5: exp would overflow without the max
  std::vector<float> out(c.OutFloats()), storage;
  const AttentionArgs a = c.Args(out.data());
  AttentionTile(a, ScratchPointer(storage, AttentionScratchFloats(4, 8), 0));
  for (int64_t i = 0; i < a.n_q; ++i) {
    for (int64_t j = 0; j < a.d_head; ++j) {  // a convex combination of the rows of v
      float lo = INFINITY, hi = -INFINITY;
      for (int64_t key = 0; key < a.n_keys; ++key) {
        lo = std::min(lo, a.v[key * a.ldv + j]);
        hi = std::max(hi, a.v[key * a.ldv + j]);
      }
      const float got = a.out[i * a.ldo + j];
      ASSERT_TRUE(std::isfinite(got)) << i << "," << j;
      EXPECT_GE(got, lo - 1e-6f);
      EXPECT_LE(got, hi + 1e-6f);
    }
  }
}

// --- Reproducibility --------------------------------------------------------

// A copy of v that starts `shift` floats past a 64-byte boundary.
class Shifted {
 public:
  Shifted(const std::vector<float>& v, int shift) : storage_(v.size() + 32) {
    float* p = storage_.data();
    while (reinterpret_cast<uintptr_t>(p) % 64 != 0) ++p;
    data_ = p + shift;
    std::copy(v.begin(), v.end(), data_);
  }
  float* data() { return data_; }

 private:
  std::vector<float> storage_;
  float* data_;
};

std::vector<float> Copy(const float* p, int64_t n) { return std::vector<float>(p, p + n); }

// Every kernel gives the same bits wherever its rows sit in memory, so results
// do not change with allocations (or with which thread's buffer is used).
TEST(KernelReproducibilityTest, ResultsDoNotDependOnAddresses) {
  const int64_t rows = 5, n = 77, out_features = 45;
  const std::vector<float> x = Random(rows * n, 27, -5.0f, 5.0f), r = Random(rows * n, 28);
  const std::vector<float> gamma = Random(n, 29), beta = Random(n, 30);
  const std::vector<float> w = Random(out_features * n, 31), b = Random(out_features, 32);
  const PackedWeights packed(w.data(), b.data(), out_features, n);
  std::vector<std::vector<float>> first;
  for (int shift = 0; shift < 16; ++shift) {
    std::vector<std::vector<float>> results;
    Shifted xs(x, shift), rs(r, (shift * 7) % 16),
        ys(std::vector<float>(rows * n), (shift * 3) % 16);
    LayerNorm(xs.data(), rows, n, {gamma.data(), beta.data(), 1e-5f}, ys.data());
    results.push_back(Copy(ys.data(), rows * n));
    AddLayerNorm(xs.data(), rs.data(), rows, n, {gamma.data(), beta.data(), 1e-5f}, ys.data());
    results.push_back(Copy(ys.data(), rows * n));
    Gelu(xs.data(), rows * n, ys.data());
    results.push_back(Copy(ys.data(), rows * n));
    ExpShifted(xs.data(), 1.5f, rows * n, ys.data());
    results.push_back(Copy(ys.data(), rows * n));
    results.push_back({Sum(xs.data(), rows * n), SumOfSquares(xs.data(), rows * n)});
    Shifted linear_out(std::vector<float>(rows * out_features), (shift * 5) % 16);
    PackedLinear(xs.data(), rows, packed, linear_out.data(), Activation::kGelu);
    results.push_back(Copy(linear_out.data(), rows * out_features));
    PackedLinear(xs.data(), 1, packed, linear_out.data());
    results.push_back(Copy(linear_out.data(), out_features));
    if (shift == 0) {
      first = results;
    } else {
      for (size_t i = 0; i < results.size(); ++i)
        EXPECT_EQ(results[i], first[i]) << "case " << i << ", shift " << shift;
    }
  }
}

TEST(VectorMathKernelTest, SumsMatchDouble) {
  for (int64_t n : {0, 1, 15, 16, 17, 100, 4099}) {
    const std::vector<float> v = Random(n, 33);
    double sum = 0.0, squares = 0.0;
    for (float f : v) {
      sum += f;
      squares += double{f} * f;
    }
    EXPECT_NEAR(Sum(v.data(), n), sum, kAbsTol + kRelTol * std::abs(sum)) << n;
    EXPECT_NEAR(SumOfSquares(v.data(), n), squares, kAbsTol + kRelTol * squares) << n;
  }
}

TEST(VectorMathKernelTest, ExpShiftedMatchesDoubleAndMasksMinusInfinity) {
  std::vector<float> x = Random(1000, 34, -87.0f, 0.0f);
  x[3] = -std::numeric_limits<float>::infinity();
  std::vector<float> y(x.size());
  for (int64_t n : {1, 15, 16, 17, 1000}) {  // vector body and tail
    ExpShifted(x.data(), -0.25f, n, y.data());
    for (int64_t j = 0; j < n; ++j) {
      const double want = std::exp(double{x[j]} + 0.25);
      EXPECT_NEAR(y[j], want, 3e-7 * want) << "x = " << x[j];
    }
  }
  EXPECT_EQ(y[3], 0.0f);
}

// --- Packed products (gemm.h) against the reference product -------------------

using PackedShape = std::tuple<int64_t, int64_t, int64_t>;  // rows, in, out

class PackedLinearKernelTest : public ::testing::TestWithParam<PackedShape> {};

TEST_P(PackedLinearKernelTest, MatchesReferenceForEveryActivationWithAndWithoutBias) {
  const auto [rows, in, out] = GetParam();
  ThreadsGuard guard;
  const std::vector<float> x = Random(rows * in, 41);
  const std::vector<float> w =
      Random(out * in, 42, -1.0f / std::sqrt(in + 1.0f), 1.0f / std::sqrt(in + 1.0f));
  const std::vector<float> b = Random(out, 43);
  for (bool bias : {true, false}) {
    const PackedWeights packed(w.data(), bias ? b.data() : nullptr, out, in);
    for (Activation act : {Activation::kIdentity, Activation::kRelu, Activation::kGelu}) {
      std::vector<float> y(rows * out, NAN), ref(rows * out);
      PackedLinear(x.data(), rows, packed, y.data(), act);
      ReferenceLinear(x.data(), rows, in, w.data(), bias ? b.data() : nullptr, out, ref.data(),
                      act);
      ExpectClose(y, ref, std::string(ToString(act)) + (bias ? " with bias" : " without bias"));
      SetNumThreads(1);  // the same bits on one thread
      std::vector<float> one(rows * out);
      PackedLinear(x.data(), rows, packed, one.data(), act);
      EXPECT_EQ(0, std::memcmp(one.data(), y.data(), y.size() * sizeof(float)));
      SetNumThreads(0);
    }
  }
}

TEST_P(PackedLinearKernelTest, AnyBlockOfRowsAndColumnsGivesTheSameBits) {
  const auto [rows, in, out] = GetParam();
  const std::vector<float> x = Random(rows * in, 44), w = Random(out * in, 45), b = Random(out, 46);
  const PackedWeights packed(w.data(), b.data(), out, in);
  std::vector<float> whole(rows * out), parts(rows * out, NAN);
  PackedLinearBlock(x.data(), in, rows, packed, {0, out, whole.data(), out, Activation::kRelu});
  // Rows one at a time, columns in panels from the last: every output the same.
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c0 = (out - 1) / kGemmPanel * kGemmPanel; c0 >= 0; c0 -= kGemmPanel) {
      PackedLinearBlock(
          x.data() + r * in, in, 1, packed,
          {c0, std::min(out, c0 + kGemmPanel), parts.data() + r * out, out, Activation::kRelu});
    }
  }
  EXPECT_EQ(0, std::memcmp(whole.data(), parts.data(), whole.size() * sizeof(float)));
}

INSTANTIATE_TEST_SUITE_P(Shapes, PackedLinearKernelTest,
                         ::testing::Values(PackedShape{1, 1, 1}, PackedShape{7, 5, 33},
                                           PackedShape{8, 64, 32}, PackedShape{9, 17, 31},
                                           PackedShape{130, 96, 288},  // several tasks
                                           PackedShape{3, 0, 40},      // in 0: the bias
                                           PackedShape{65, 300, 257}));

TEST(GemmPanelsKernelTest, StridedOperandsAndAccumulationMatchNaive) {
  // c [rows, n] (+)= a [rows, k] · b [k, n], b row-major with a row stride past
  // n; buffers sized exactly, so a read past column n would be caught by ASan.
  for (const auto& [rows, k, n] : {PackedShape{5, 7, 6}, PackedShape{17, 64, 70},
                                   PackedShape{8, 128, 32}, PackedShape{1, 3, 1}}) {
    const int64_t ldb = n + 3;
    const std::vector<float> a = Random(rows * k, 47), b = Random((k - 1) * ldb + n, 48);
    const std::vector<float> c0 = Random(rows * n, 49);
    for (bool accumulate : {false, true}) {
      std::vector<float> c = c0, ref(rows * n);
      GemmPanels(PanelsOf({rows, k, n, ldb}, a.data(), b.data(), c.data(), accumulate));
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < n; ++j) {
          double sum = accumulate ? c0[r * n + j] : 0.0;
          for (int64_t i = 0; i < k; ++i) sum += double{a[r * k + i]} * b[i * ldb + j];
          ref[r * n + j] = static_cast<float>(sum);
        }
      }
      ExpectClose(c, ref, accumulate ? "accumulate" : "overwrite");
    }
  }
}

// --- Elementwise ------------------------------------------------------------

TEST(ElementwiseKernelTest, AddMatchesNaive) {
  const std::vector<float> a = Random(333, 25), b = Random(333, 26);
  std::vector<float> y(333), ref(333);
  Add(a.data(), b.data(), 333, y.data());
  AddNaive(a.data(), b.data(), 333, ref.data());
  EXPECT_EQ(y, ref);
}

}  // namespace
}  // namespace phasor::kernels

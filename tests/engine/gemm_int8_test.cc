// The int8 product (engine/kernels/gemm_int8.h) on every target this CPU has,
// and each panel kernel (portable, avx2, avx512 without and with VNNI) called
// directly: bit for bit against the naive twin (tests/support/reference_int8.h)
// for identity and relu, within GELU's own tolerance for gelu; the same bits on
// every target and for any split of rows and columns; zero and non-finite rows
// and channels; ties rounded to even; and the definition itself against the
// float product, within the bound quantization allows.
#include "engine/kernels/gemm_int8.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/cpu.h"
#include "engine/error.h"
#include "engine/kernels/kernel_table.h"
#include "tests/support/kernel_test_util.h"
#include "tests/support/reference_int8.h"
#include "tests/support/reference_kernels.h"

namespace phasor::kernels {
namespace {

using phasor::testing::IsaGuard;
using phasor::testing::Random;
using phasor::testing::SameBits;

constexpr double kGeluTol = 1e-5;  // |kernel - naive GELU| <= kGeluTol·(1 + |naive|)
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// The first index where a and b differ in their bits, or -1.
int64_t FirstDiff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) return static_cast<int64_t>(i);
  }
  return -1;
}

struct Case {
  int64_t rows, in, out;
  Activation act;
  bool bias;
};

std::string Name(const Case& c) {
  return std::to_string(c.rows) + "x" + std::to_string(c.in) + "->" + std::to_string(c.out) + " " +
         ToString(c.act) + (c.bias ? "" : " no bias");
}

// The layer's call on the active target: the rows quantized in two calls (a
// split of rows), with row strides wider than needed, then the columns in two
// blocks [0, split) and [split, out) with split a multiple of 32.
std::vector<float> RunInt8(const Case& c, const std::vector<float>& x, const Int8Weights& w) {
  const int64_t ldq = w.row_bytes() + 7, ldy = c.out + 3;
  std::vector<uint8_t> q(static_cast<size_t>(c.rows * ldq + 1), 0xAB);  // [rows, ldq]
  std::vector<float> scales(static_cast<size_t>(c.rows));
  const int64_t half = c.rows / 2;
  QuantizeRowsInt8(x.data(), c.in, half, w, {q.data(), ldq, scales.data()});
  QuantizeRowsInt8(x.data() + half * c.in, c.in, c.rows - half, w,
                   {q.data() + half * ldq, ldq, scales.data() + half});
  std::vector<float> y(static_cast<size_t>(c.rows * ldy), -7.0f);  // [rows, ldy]
  const int64_t split = std::min<int64_t>(32, c.out);
  Int8LinearBlock(q.data(), ldq, scales.data(), c.rows, w, {0, split, y.data(), ldy, c.act});
  Int8LinearBlock(q.data(), ldq, scales.data(), c.rows, w, {split, c.out, y.data(), ldy, c.act});
  std::vector<float> out(static_cast<size_t>(c.rows * c.out));  // [rows, out]
  for (int64_t r = 0; r < c.rows; ++r) {
    for (int64_t j = 0; j < ldy; ++j) {
      if (j < c.out) {
        out[r * c.out + j] = y[r * ldy + j];
      } else {
        EXPECT_EQ(y[r * ldy + j], -7.0f) << "written past out at row " << r;
      }
    }
  }
  return out;
}

// x: [rows, in] with row 1 all zero (rows > 2); W: [out, in] with channel 2 all
// zero (out > 3); values of several magnitudes.
void Inputs(const Case& c, uint32_t seed, std::vector<float>* x, std::vector<float>* w,
            std::vector<float>* b) {
  *x = Random(c.rows * c.in, seed, -3.0f, 3.0f);
  *w = Random(c.out * c.in, seed + 1, -0.2f, 0.2f);
  *b = Random(c.out, seed + 2);
  for (int64_t r = 0; r < c.rows; ++r) {  // rows of different ranges
    for (int64_t k = 0; k < c.in; ++k) (*x)[r * c.in + k] *= std::ldexp(1.0f, int(r % 5) - 2);
  }
  if (c.rows > 2) std::fill(x->begin() + c.in, x->begin() + 2 * c.in, 0.0f);
  if (c.out > 3) std::fill(w->begin() + 2 * c.in, w->begin() + 3 * c.in, 0.0f);
}

// Compares the kernel's y with the naive twin: the same bits, or for GELU
// within kGeluTol of GELU (in double) applied to the twin's value. Returns
// whether every value agreed.
bool AgreesWithTwin(const Case& c, const std::vector<float>& y, const std::vector<float>& x,
                    const std::vector<float>& w, const std::vector<float>& b) {
  const std::vector<float> twin = testing::NaiveInt8Linear(
      x.data(), c.rows, w.data(), c.bias ? b.data() : nullptr, c.out, c.in, c.act);
  if (c.act == Activation::kIdentity || c.act == Activation::kRelu) {
    const int64_t i = FirstDiff(y, twin);
    EXPECT_EQ(i, -1) << Name(c) << " on " << IsaName(ActiveIsa()) << ": at " << i << " got "
                     << (i >= 0 ? y[i] : 0) << " want " << (i >= 0 ? twin[i] : 0);
    return i == -1;
  }
  for (size_t i = 0; i < y.size(); ++i) {
    const double want = testing::ReferenceActivation(c.act, twin[i]);
    const bool ok = (std::isnan(want) && std::isnan(y[i])) ||
                    std::abs(y[i] - want) <= kGeluTol * (1.0 + std::abs(want));
    if (!ok) {
      ADD_FAILURE() << Name(c) << " on " << IsaName(ActiveIsa()) << ": at " << i << " got " << y[i]
                    << " want " << want;
      return false;
    }
  }
  return true;
}

const Case kCases[] = {
    {1, 1, 1, Activation::kIdentity, true},
    {3, 5, 33, Activation::kRelu, true},
    {17, 67, 70, Activation::kIdentity, false},
    {8, 130, 64, Activation::kRelu, false},
    {13, 255, 97, Activation::kGelu, true},
    {5, 4, 32, Activation::kIdentity, true},
    {9, 512, 40, Activation::kRelu, true},
    {16, 2, 129, Activation::kGelu, false},
    {7, 0, 5, Activation::kRelu, true},
    // several blocks of rows and chunks of k in the kernels that widen them,
    // and exactly one or two of each
    {50, 1030, 45, Activation::kRelu, true},
    {24, 256, 32, Activation::kIdentity, true},
    {48, 1024, 64, Activation::kRelu, false},
};

TEST(Int8KernelTest, MatchesTheNaiveTwinOnEveryTargetWithTheSameBits) {
  IsaGuard guard;
  for (const Case& c : kCases) {
    std::vector<float> x, w, b;
    Inputs(c, 100 + static_cast<uint32_t>(c.in), &x, &w, &b);
    const Int8Weights packed(w.data(), c.bias ? b.data() : nullptr, c.out, c.in);
    std::vector<std::vector<float>> results;
    for (Isa isa : AvailableIsas()) {
      SetIsa(isa);
      results.push_back(RunInt8(c, x, packed));
      AgreesWithTwin(c, results.back(), x, w, b);
      for (float v : results.back()) ASSERT_FALSE(std::isnan(v)) << Name(c);
    }
    for (size_t t = 0; t < results.size(); ++t) {
      EXPECT_TRUE(SameBits(results[t], results.back()))
          << Name(c) << ": " << IsaName(AvailableIsas()[t]) << " differs from portable";
    }
  }
}

// The zero row's outputs are act(b) exactly, the zero channel's act(0·sx + b);
// scales are 0, not NaN.
TEST(Int8KernelTest, ZeroRowsAndChannelsHaveScaleZeroAndGiveTheBias) {
  const Case c{4, 37, 35, Activation::kIdentity, true};
  std::vector<float> x, w, b;
  Inputs(c, 7, &x, &w, &b);
  const Int8Weights packed(w.data(), b.data(), c.out, c.in);
  EXPECT_EQ(packed.scales()[2], 0.0f);
  EXPECT_GT(packed.scales()[0], 0.0f);
  const std::vector<float> y = RunInt8(c, x, packed);
  for (int64_t j = 0; j < c.out; ++j) EXPECT_EQ(y[1 * c.out + j], b[j]) << j;
  for (int64_t r = 0; r < c.rows; ++r) EXPECT_EQ(y[r * c.out + 2], b[2]) << r;
  std::vector<uint8_t> q(static_cast<size_t>(packed.row_bytes() * c.rows));
  std::vector<float> scales(static_cast<size_t>(c.rows));
  QuantizeRowsInt8(x.data(), c.in, c.rows, packed, {q.data(), packed.row_bytes(), scales.data()});
  EXPECT_EQ(scales[1], 0.0f);
  EXPECT_GT(scales[0], 0.0f);
  for (int64_t k = 0; k < packed.row_bytes(); ++k) EXPECT_EQ(q[packed.row_bytes() + k], 128);
}

// Rows and channels too small for their scale: a row whose 127 / max
// overflows (max 1e-38) and a channel whose max / 127 underflows to 0 (max
// 1e-44) quantize to 0 with scale 0, like zero ones; a row of max 1e-30 is an
// ordinary row. On every target, the twin's bits, no NaN.
TEST(Int8KernelTest, TinyRowsAndChannelsQuantizeToZero) {
  IsaGuard guard;
  const Case c{3, 40, 33, Activation::kIdentity, true};
  std::vector<float> x, w, b;
  Inputs(c, 41, &x, &w, &b);
  for (int64_t k = 0; k < c.in; ++k) {
    x[0 * c.in + k] = (k % 2 ? -1e-38f : 0.5e-38f);
    x[2 * c.in + k] *= 1e-30f;
    w[5 * c.in + k] = (k == 7 ? 1e-44f : 0.0f);
  }
  const Int8Weights packed(w.data(), b.data(), c.out, c.in);
  EXPECT_EQ(packed.scales()[5], 0.0f);
  for (Isa isa : AvailableIsas()) {
    SetIsa(isa);
    const std::vector<float> y = RunInt8(c, x, packed);
    AgreesWithTwin(c, y, x, w, b);
    for (int64_t j = 0; j < c.out; ++j) EXPECT_EQ(y[j], b[j]) << IsaName(isa) << " " << j;
    for (int64_t r = 0; r < c.rows; ++r) EXPECT_EQ(y[r * c.out + 5], b[5]) << IsaName(isa);
    for (float v : y) EXPECT_FALSE(std::isnan(v)) << IsaName(isa);
    std::vector<uint8_t> q(static_cast<size_t>(packed.row_bytes() * c.rows));
    std::vector<float> scales(static_cast<size_t>(c.rows));
    QuantizeRowsInt8(x.data(), c.in, c.rows, packed, {q.data(), packed.row_bytes(), scales.data()});
    EXPECT_EQ(scales[0], 0.0f) << IsaName(isa);
    EXPECT_GT(scales[2], 0.0f) << IsaName(isa);
  }
}

// The int32 sums bound the row length: 66311 values at most.
TEST(Int8KernelTest, TooLongRowsAreAnError) {
  const std::vector<float> w(66312, 0.5f);
  EXPECT_THROW(Int8Weights(w.data(), nullptr, 1, 66312), Error);
  EXPECT_NO_THROW(Int8Weights(w.data(), nullptr, 1, 66311));
}

// NaN or Inf in a row of x makes that row's outputs NaN and no other's; the
// same for a channel of W. Every target, no trap, the twin's bits.
TEST(Int8KernelTest, NonFiniteRowsAndChannelsGiveNaNThereOnly) {
  IsaGuard guard;
  for (Activation act : {Activation::kIdentity, Activation::kRelu, Activation::kGelu,
                         Activation::kGeluTanh, Activation::kSilu}) {
    const Case c{6, 45, 70, act, true};
    std::vector<float> x, w, b;
    Inputs(c, 11, &x, &w, &b);
    x[0 * c.in + 3] = kNaN;
    x[3 * c.in + 44] = kInf;
    x[4 * c.in + 0] = -kInf;
    w[40 * c.in + 7] = kInf;
    w[65 * c.in + 1] = kNaN;
    const Int8Weights packed(w.data(), b.data(), c.out, c.in);
    for (Isa isa : AvailableIsas()) {
      SetIsa(isa);
      const std::vector<float> y = RunInt8(c, x, packed);
      AgreesWithTwin(c, y, x, w, b);
      for (int64_t r = 0; r < c.rows; ++r) {
        for (int64_t j = 0; j < c.out; ++j) {
          const bool bad = r == 0 || r == 3 || r == 4 || j == 40 || j == 65;
          EXPECT_EQ(std::isnan(y[r * c.out + j]), bad)
              << IsaName(isa) << " " << ToString(act) << " row " << r << " col " << j;
        }
      }
    }
  }
}

// Ties go to the even integer, for the rows (on every target, in the vector
// and the scalar part of the row) and for the weights; the row's bytes are
// q + 128 and its padding 128.
TEST(Int8KernelTest, QuantizationRoundsHalfToEven) {
  IsaGuard guard;
  // max 127: the multiplier and the scale are 1, so q = round(x).
  const std::vector<float> ties = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, -3.5f, 126.5f, -127.0f, 3.25f};
  const std::vector<int> rounded = {0, 2, 2, 0, -2, -4, 126, -127, 3};
  std::vector<float> x = {127.0f};
  std::vector<int> want = {127};
  for (int rep = 0; rep < 5; ++rep) {  // 46 values: 40 + 6 past avx2's, 32 + 14 past avx512's
    x.insert(x.end(), ties.begin(), ties.end());
    want.insert(want.end(), rounded.begin(), rounded.end());
  }
  const int64_t in = static_cast<int64_t>(x.size());
  const Int8Weights packed(x.data(), nullptr, 1, in);
  EXPECT_EQ(packed.row_bytes(), 48);
  EXPECT_EQ(packed.scales()[0], 1.0f);
  for (Isa isa : AvailableIsas()) {
    SetIsa(isa);
    std::vector<uint8_t> q(static_cast<size_t>(packed.row_bytes()), 0);
    float scale = 0.0f;
    QuantizeRowsInt8(x.data(), in, 1, packed, {q.data(), packed.row_bytes(), &scale});
    EXPECT_EQ(scale, 1.0f);
    for (int64_t k = 0; k < in; ++k)
      EXPECT_EQ(int{q[k]}, want[k] + 128) << IsaName(isa) << " " << k;
    for (int64_t k = in; k < packed.row_bytes(); ++k) EXPECT_EQ(int{q[k]}, 128) << k;
    // And the product: Σ q·q, exactly.
    float y = 0.0f;
    Int8LinearBlock(q.data(), packed.row_bytes(), &scale, 1, packed, {0, 1, &y, 1});
    int64_t dot = 0;
    for (int v : want) dot += int64_t{v} * v;
    EXPECT_EQ(y, static_cast<float>(dot)) << IsaName(isa);
  }
  // The weights: the packed bytes of channel 0 at [k / 4][0][k % 4].
  for (int64_t k = 0; k < in; ++k) EXPECT_EQ(int{packed.packed()[k / 4 * 128 + k % 4]}, want[k]);
  int32_t sum = 0;
  for (int v : want) sum += v;
  EXPECT_EQ(packed.column_sums()[0], sum);
}

// The row kernels called directly on every target, at every length to 70
// (each vector width's main loop and tail): int8_max_abs gives the largest
// |x| of a finite row wherever it sits (computed here in the test) and tells
// a row holding an infinity or a NaN anywhere; int8_quantize clamps what
// passes ±127 and rounds ties to even (std::nearbyint under the default
// rounding mode), whatever inv.
TEST(Int8KernelTest, RowKernelsFindTheLargestMagnitudeAndClampOnEveryTarget) {
  IsaGuard guard;
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> value(-3.0f, 3.0f);
  for (Isa isa : AvailableIsas()) {
    SetIsa(isa);
    const KernelTable& k = Kernels();
    for (int64_t n = 1; n <= 70; ++n) {
      std::vector<float> x(static_cast<size_t>(n));
      for (float& v : x) v = value(rng);
      x[rng() % n] = (rng() % 2 ? -1.0f : 1.0f) * 7.5f;  // the largest, either sign
      if (n > 3) x[rng() % n] = 1e-40f;                  // a denormal
      if (n > 3) x[rng() % n] = -0.0f;
      float want = 0.0f;
      for (float v : x) want = std::max(want, std::fabs(v));
      bool finite = false;
      EXPECT_EQ(k.int8_max_abs(x.data(), n, &finite), want) << IsaName(isa) << " n " << n;
      EXPECT_TRUE(finite) << IsaName(isa) << " n " << n;
      for (float bad : {kInf, -kInf, kNaN}) {
        std::vector<float> y = x;
        y[rng() % n] = bad;
        finite = true;
        k.int8_max_abs(y.data(), n, &finite);
        EXPECT_FALSE(finite) << IsaName(isa) << " n " << n << " " << bad;
      }
      // x·inv spans ±(7.5·40): values past ±127 clamp, halves go to even.
      for (float& v : x) v = std::round(v * 4.0f) / 4.0f;  // quarters: some ties at inv 2
      for (float inv : {2.0f, 40.0f}) {
        std::vector<uint8_t> q(static_cast<size_t>(n) + 1, 7);
        k.int8_quantize(x.data(), n, inv, q.data());
        for (int64_t i = 0; i < n; ++i) {
          const float r = std::clamp(std::nearbyint(x[i] * inv), -127.0f, 127.0f);
          EXPECT_EQ(int{q[i]}, static_cast<int>(r) + 128)
              << IsaName(isa) << " n " << n << " inv " << inv << " at " << i << " x " << x[i];
        }
        EXPECT_EQ(q[n], 7) << IsaName(isa) << " n " << n << ": written past the row";
      }
    }
  }
}

// Every panel kernel this CPU runs, called directly (the avx512 target without
// VNNI too, which the table skips on CPUs that have it), gives the portable
// kernel's bits.
TEST(Int8KernelTest, EveryPanelKernelGivesTheSameBits) {
  using PanelFn = void (*)(const Int8PanelArgs&);
  std::vector<std::pair<std::string, PanelFn>> kernels = {{"portable", portable::Int8Panel}};
#if defined(__x86_64__)
  const std::vector<Isa> isas = AvailableIsas();
  auto has = [&](Isa isa) { return std::find(isas.begin(), isas.end(), isa) != isas.end(); };
  if (has(Isa::kAvx2)) kernels.emplace_back("avx2", avx2::Int8Panel);
  if (has(Isa::kAvx512)) kernels.emplace_back("avx512", avx512::Int8Panel);
  if (has(Isa::kAvx512) && __builtin_cpu_supports("avx512vnni")) {
    kernels.emplace_back("avx512vnni", avx512vnni::Int8Panel);
  }
#endif
  for (const Case& c : kCases) {
    std::vector<float> x, w, b;
    Inputs(c, 300 + static_cast<uint32_t>(c.rows), &x, &w, &b);
    if (c.in > 0) x[c.rows / 2 * c.in] = -kInf;  // and a non-finite row
    const Int8Weights packed(w.data(), c.bias ? b.data() : nullptr, c.out, c.in);
    const int64_t ldq = packed.row_bytes();
    std::vector<uint8_t> q(static_cast<size_t>(c.rows * ldq));  // [rows, ldq]
    std::vector<float> scales(static_cast<size_t>(c.rows));
    QuantizeRowsInt8(x.data(), c.in, c.rows, packed, {q.data(), ldq, scales.data()});
    std::vector<std::vector<float>> results;
    for (const auto& [name, fn] : kernels) {
      std::vector<float> y(static_cast<size_t>(c.rows * c.out));  // [rows, out]
      for (int64_t c0 = 0; c0 < c.out; c0 += 32) {
        fn(Int8PanelArgs{q.data(), ldq, c.rows, scales.data(), packed.packed() + c0 * ldq, ldq / 4,
                         packed.column_sums() + c0, packed.scales() + c0, packed.bias() + c0,
                         c.act == Activation::kRelu, y.data() + c0, c.out,
                         std::min<int64_t>(32, c.out - c0)});
      }
      results.push_back(y);
    }
    for (size_t t = 0; t < results.size(); ++t) {
      EXPECT_EQ(FirstDiff(results[t], results.front()), -1)
          << Name(c) << ": " << kernels[t].first << " differs from portable";
    }
  }
}

// The definition against float math: each dequantized value differs from
// x·Wᵀ + b (in double) by at most what rounding x and W to their grids allows,
// (Σ|x|·mw + Σ|W|·mx)/254 + in·mx·mw/254², plus float rounding.
TEST(Int8KernelTest, DequantizedProductIsCloseToTheFloatProduct) {
  const Case c{12, 300, 50, Activation::kIdentity, true};
  std::vector<float> x, w, b;
  Inputs(c, 21, &x, &w, &b);
  const Int8Weights packed(w.data(), b.data(), c.out, c.in);
  const std::vector<float> y = RunInt8(c, x, packed);
  std::vector<float> exact(static_cast<size_t>(c.rows * c.out));
  testing::ReferenceLinear(x.data(), c.rows, c.in, w.data(), b.data(), c.out, exact.data());
  double worst = 0.0;
  for (int64_t r = 0; r < c.rows; ++r) {
    double mx = 0.0;
    for (int64_t k = 0; k < c.in; ++k) mx = std::max(mx, double{std::abs(x[r * c.in + k])});
    for (int64_t j = 0; j < c.out; ++j) {
      double mw = 0.0, sum_x = 0.0, sum_w = 0.0, sum_xw = 0.0;
      for (int64_t k = 0; k < c.in; ++k) {
        const double a = std::abs(x[r * c.in + k]), v = std::abs(w[j * c.in + k]);
        mw = std::max(mw, v);
        sum_x += a;
        sum_w += v;
        sum_xw += a * v;
      }
      const double bound = (sum_x * mw + sum_w * mx) / 254.0 + c.in * mx * mw / (254.0 * 254.0) +
                           1e-6 * (1.0 + sum_xw + std::abs(b[j]));
      const double err = std::abs(double{y[r * c.out + j]} - exact[r * c.out + j]);
      EXPECT_LE(err, bound) << "row " << r << " col " << j;
      worst = std::max(worst, err / bound);
    }
  }
  // The error is that of quantization, not of nothing at all: a product that
  // silently fell back to floats would pass the bound above.
  EXPECT_GT(worst, 1e-3);
}

TEST(Int8KernelTest, NullBiasIsZeroBias) {
  const Case c{5, 33, 40, Activation::kRelu, true};
  std::vector<float> x, w, b;
  Inputs(c, 31, &x, &w, &b);
  const std::vector<float> zeros(static_cast<size_t>(c.out), 0.0f);
  const Int8Weights none(w.data(), nullptr, c.out, c.in), zero(w.data(), zeros.data(), c.out, c.in);
  EXPECT_TRUE(SameBits(RunInt8(c, x, none), RunInt8(c, x, zero)));
  EXPECT_GE(none.bytes(), c.out * c.in);
}

}  // namespace
}  // namespace phasor::kernels

// The bfloat16 product (engine/kernels/gemm_bf16.h) against its naive twin
// (tests/support/reference_bf16.h) on every kernel this CPU runs: the public
// entry under each target (SetIsa), and the avx512 target's widening kernel
// directly where the CPU would pick the vdpbf16ps one. Each output must lie
// within the float32 sum's error bound of b + Σ bf16(x)·bf16(W) (in double);
// within a kernel, any split of rows and columns and any thread count give the
// same bits; the kernels that widen to float give the same bits as each other.
#include "engine/kernels/gemm_bf16.h"

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
#include "engine/kernels/activations.h"
#include "engine/kernels/kernel_table.h"
#include "engine/parallel.h"
#include "tests/support/kernel_test_util.h"
#include "tests/support/reference_bf16.h"
#include "tests/support/reference_kernels.h"

namespace phasor::kernels {
namespace {

using phasor::testing::IsaGuard;
using phasor::testing::Random;
using phasor::testing::SameBits;

using testing::Bf16Allowance;
using testing::Bf16Output;
using testing::NaiveBf16;
using testing::NaiveBf16Product;
using testing::NaiveBf16Weights;
using testing::ReferenceActivation;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr Activation kActivations[] = {Activation::kIdentity, Activation::kRelu, Activation::kGelu,
                                       Activation::kGeluTanh, Activation::kSilu};

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

uint32_t BitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

// --- rounding ------------------------------------------------------------------

TEST(Bf16Test, ToBf16RoundsKnownValuesToNearestEven) {
  struct Case {
    uint32_t in;
    uint16_t want;
    const char* what;
  };
  const Case cases[] = {
      {0x3F800000u, 0x3F80u, "1"},
      {0x3F808000u, 0x3F80u, "1 + 2^-8: a tie, down to the even 1"},
      {0x3F818000u, 0x3F82u, "1 + 3·2^-8: a tie, up to the even 1 + 2^-6"},
      {0x3F808001u, 0x3F81u, "just above the tie"},
      {0x3F807FFFu, 0x3F80u, "just below the tie"},
      {0xBF808000u, 0xBF80u, "-(1 + 2^-8): ties to even with the sign kept"},
      {0xBF818000u, 0xBF82u, "-(1 + 3·2^-8)"},
      {0x40490FDBu, 0x4049u, "pi"},
      {0x00000000u, 0x0000u, "+0"},
      {0x80000000u, 0x8000u, "-0"},
      {0x7F800000u, 0x7F80u, "+inf"},
      {0xFF800000u, 0xFF80u, "-inf"},
      {0x7F7FFFFFu, 0x7F80u, "the largest float rounds to +inf"},
      {0xFF7FFFFFu, 0xFF80u, "the lowest float rounds to -inf"},
      {0x7F7F8000u, 0x7F80u, "the tie above the largest bfloat16 rounds to inf (even)"},
      {0x7F7F7FFFu, 0x7F7Fu, "just below it stays the largest bfloat16"},
      {0x00800000u, 0x0080u, "the smallest normal"},
      {0x007FFFFFu, 0x0080u, "the largest denormal rounds up to the smallest normal"},
      {0x00000001u, 0x0000u, "the smallest denormal rounds to 0"},
      {0x00008000u, 0x0000u, "a denormal tie down to even 0"},
      {0x00018000u, 0x0002u, "a denormal tie up to even 2"},
      {0x00008001u, 0x0001u, "a denormal above the tie"},
      {0x80000001u, 0x8000u, "a negative denormal rounds to -0"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ToBf16(FromBits(c.in)), c.want) << c.what;
    EXPECT_EQ(NaiveBf16(FromBits(c.in)), c.want) << "twin: " << c.what;
  }
  // NaNs stay NaNs, also those whose payload lies in the dropped half alone
  // (truncation would make them infinities) and signalling ones.
  for (uint32_t nan : {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u, 0x7FA00000u, 0x7F80FFFFu,
                       0x7FFFFFFFu}) {
    const uint16_t h = ToBf16(FromBits(nan));
    EXPECT_TRUE(std::isnan(FromBf16(h))) << std::hex << nan << " -> " << h;
    EXPECT_EQ(uint32_t{h} >> 15, nan >> 31) << std::hex << nan << ": the sign is kept";
    EXPECT_EQ(h, NaiveBf16(FromBits(nan))) << std::hex << nan;
  }
}

TEST(Bf16Test, ToBf16MatchesItsTwinAndInvertsFromBf16) {
  for (uint32_t h = 0; h <= 0xFFFFu; ++h) {
    const float f = FromBf16(static_cast<uint16_t>(h));
    EXPECT_EQ(BitsOf(f), h << 16);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(FromBf16(ToBf16(f)))) << h;
    } else {
      EXPECT_EQ(ToBf16(f), h) << "a bfloat16 value is its own rounding: " << h;
    }
  }
  std::mt19937 rng(1);
  for (int i = 0; i < 1 << 20; ++i) {
    const uint32_t u = static_cast<uint32_t>(rng());
    // Random bits, and the same with the dropped half set to the tie.
    for (uint32_t bits : {u, (u & 0xFFFF0000u) | 0x8000u}) {
      ASSERT_EQ(ToBf16(FromBits(bits)), NaiveBf16(FromBits(bits))) << std::hex << bits;
    }
  }
}

// Two ties at at[0] and at[1], rounded to the even neighbour either way:
// 0x3F808000 down to 0x3F80, 0xBF818000 up to 0xBF82.
void PutTies(float* at) {
  const uint32_t tie_even = 0x3F808000u, tie_odd = 0xBF818000u;
  std::memcpy(at, &tie_even, 4);
  std::memcpy(at + 1, &tie_odd, 4);
}

TEST(Bf16Test, RoundRowsMatchesTheTwinAndZeroesThePad) {
  for (int64_t in : {1, 2, 7, 16, 33, 130}) {
    const Bf16Weights w(Random(3 * in, 2).data(), nullptr, 3, in);
    ASSERT_EQ(w.row_values(), in + in % 2);
    const int64_t rows = 5, ldx = in + 3, ldxb = w.row_values() + 5;
    std::vector<float> x = Random(rows * ldx, 3, -1e3f, 1e3f);
    x[0] = kNaN;
    x[1 % in] = -kInf;
    x[ldx + in - 1] = 3.4e38f;  // rounds to +inf
    x[2 * ldx] = 1e-40f;        // a denormal
    if (in > 4) {
      PutTies(&x[3]);
      ASSERT_EQ(NaiveBf16(x[3]), 0x3F80u);
      ASSERT_EQ(NaiveBf16(x[4]), 0xBF82u);
    }
    IsaGuard guard;
    for (Isa isa : AvailableIsas()) {
      SetIsa(isa);
      std::vector<uint16_t> xb(rows * ldxb, 0xABCDu);
      RoundRowsBf16(x.data(), ldx, rows, w, xb.data(), ldxb);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t k = 0; k < ldxb; ++k) {
          const uint16_t got = xb[r * ldxb + k];
          if (k < in) {
            EXPECT_EQ(got, NaiveBf16(x[r * ldx + k]))
                << IsaName(isa) << " " << in << " " << r << " " << k;
          } else if (k < w.row_values()) {
            EXPECT_EQ(got, 0u) << IsaName(isa) << ": the pad of an odd row, in " << in;
          } else {
            EXPECT_EQ(got, 0xABCDu) << IsaName(isa) << ": past row_values, in " << in;
          }
        }
      }
    }
  }
}

TEST(Bf16Test, PairRowsInterleavesTwoRoundedRowsOnEveryTarget) {
  IsaGuard guard;
  // Odd and even row counts, widths on both sides of avx2's 8 and avx512's 16
  // lanes, and the specials of RoundRowsMatchesTheTwinAndZeroesThePad.
  for (int64_t rows : {1, 2, 5, 6}) {
    for (int64_t n : {1, 7, 8, 16, 17, 32, 45}) {
      const int64_t ldx = n + 3, ldo = 2 * n + 6;
      std::vector<float> x = Random(rows * ldx, static_cast<uint32_t>(rows * 100 + n), -1e3f, 1e3f);
      x[0] = kNaN;
      x[(rows - 1) * ldx + n - 1] = -kInf;
      x[n / 2] = 3.4e38f;             // rounds to +inf
      if (rows > 1) x[ldx] = 1e-40f;  // a denormal
      if (n > 4) PutTies(&x[(rows - 1) * ldx + 1]);
      const int64_t pairs = (rows + 1) / 2;
      for (Isa isa : AvailableIsas()) {
        SetIsa(isa);
        std::vector<uint16_t> out(pairs * ldo, 0xABCDu);
        PairRowsBf16(x.data(), ldx, rows, n, out.data(), ldo);
        for (int64_t p = 0; p < pairs; ++p) {
          for (int64_t k = 0; k < ldo; ++k) {
            const int64_t r = 2 * p + k % 2, c = k / 2;
            const uint16_t want = k >= 2 * n ? 0xABCDu : r < rows ? NaiveBf16(x[r * ldx + c]) : 0u;
            ASSERT_EQ(out[p * ldo + k], want) << IsaName(isa) << ": " << rows << " rows of " << n
                                              << ", pair " << p << " at " << k;
          }
        }
      }
    }
  }
}

TEST(Bf16Test, Bf16WeightsFromBfloat16PackLikeThoseFromFloat) {
  for (int64_t out : {1, 31, 33, 70}) {
    for (int64_t in : {1, 6, 7, 64}) {
      const std::vector<float> wf = Random(out * in, 4, -3.0f, 3.0f), b = Random(out, 5);
      const std::vector<uint16_t> wb = NaiveBf16Weights(wf.data(), out * in);
      std::vector<float> representable(wb.size());  // each value exactly a bfloat16
      for (size_t i = 0; i < wb.size(); ++i) representable[i] = FromBf16(wb[i]);
      const Bf16Weights from_float(representable.data(), b.data(), out, in);
      const Bf16Weights rounded(wf.data(), b.data(), out, in);
      const Bf16Weights from_bf16(wb.data(), b.data(), out, in);
      const int64_t panels = (out + 31) / 32;
      const size_t values = static_cast<size_t>(panels * 32 * from_bf16.row_values());
      ASSERT_EQ(from_bf16.row_values(), from_float.row_values());
      EXPECT_EQ(from_bf16.bytes(), from_float.bytes());
      EXPECT_GE(from_bf16.bytes(), 2 * out * in + 4 * out);
      const Bf16Weights copy = from_bf16;  // stays aligned: the kernels' lines are whole
      for (const Bf16Weights* any : {&from_bf16, &copy}) {
        EXPECT_EQ(reinterpret_cast<uintptr_t>(any->packed()) % 64, 0u);
      }
      for (const Bf16Weights* other : {&from_float, &rounded, &copy}) {
        EXPECT_EQ(std::memcmp(from_bf16.packed(), other->packed(), values * 2), 0) << out << in;
        EXPECT_EQ(std::memcmp(from_bf16.bias(), other->bias(), panels * 32 * 4), 0) << out << in;
      }
      // The layout of packed(): W[32·p + j, 2i + t] at 32·p·row_values + 64·i + 2·j + t.
      const int64_t c = out - 1, k = in - 1;
      EXPECT_EQ(
          from_bf16
              .packed()[c / 32 * 32 * from_bf16.row_values() + 64 * (k / 2) + 2 * (c % 32) + k % 2],
          wb[c * in + k]);
      for (int64_t j = out; j < panels * 32; ++j) EXPECT_EQ(from_bf16.bias()[j], 0.0f);
    }
  }
}

// --- the product on every kernel ----------------------------------------------

using PanelFn = void (*)(const Bf16PanelArgs&);

// A kernel to test: the public entry under a target, or a kernel called
// directly (the avx512 target's widening one, which CPUs with AVX512-BF16
// never pick).
struct Kernel {
  std::string name;
  Isa isa;
  PanelFn direct;  // null: Bf16LinearBlock under SetIsa(isa)
};

std::vector<Kernel> EveryKernel() {
  std::vector<Kernel> kernels;
  for (Isa isa : AvailableIsas()) kernels.push_back({IsaName(isa), isa, nullptr});
#if defined(__x86_64__)
  if (HasAvx512Bf16()) kernels.push_back({"avx512 widening", Isa::kAvx512, avx512::Bf16Panel});
#endif
  return kernels;
}

// Columns [c0, c1) of the rows [0, rows) with kernel k: what Bf16LinearBlock
// does, with k's panel kernel.
void Block(const Kernel& k, const uint16_t* xb, int64_t ldxb, int64_t rows, const Bf16Weights& w,
           const OutputBlock& out) {
  if (k.direct == nullptr) {
    Bf16LinearBlock(xb, ldxb, rows, w, out);
    return;
  }
  const int64_t c0 = out.col_begin, c1 = out.col_end, ldy = out.ldy;
  float* y = out.y;
  for (int64_t c = c0; c < c1; c += 32) {
    k.direct(Bf16PanelArgs{xb, ldxb, rows, w.packed() + c * w.row_values(), w.row_values() / 2,
                           w.bias() + c, out.act == Activation::kRelu, y + c, ldy,
                           std::min<int64_t>(32, c1 - c)});
  }
  // What the panels leave to a pass over the rows (FinishBlock): all but relu.
  if (out.act != Activation::kIdentity && out.act != Activation::kRelu) {
    for (int64_t r = 0; r < rows; ++r)
      Activate(out.act, y + r * ldy + c0, c1 - c0, y + r * ldy + c0);
  }
}

// How Product splits its work, and its output's row stride (0: out).
struct Split {
  int64_t row_step = 1 << 20;
  int64_t col_step = 1 << 20;
  int64_t ldy = 0;
};

// y: [rows, out] (row stride ldy >= out, the rest left alone) = the layer on
// x: [rows, in], rounded with a row stride of row_values + 3, the product in
// blocks of row_step rows x col_step columns (multiples of 32), over
// ParallelTasks.
std::vector<float> Product(const Kernel& k, const std::vector<float>& x, int64_t rows,
                           const Bf16Weights& w, Activation act, const Split& split = {}) {
  SetIsa(k.isa);
  const int64_t in = w.in(), out = w.out(), ldxb = w.row_values() + 3;
  const int64_t row_step = split.row_step, col_step = split.col_step;
  const int64_t ldy = std::max(split.ldy, out);
  std::vector<uint16_t> xb(static_cast<size_t>(rows * ldxb + 1));  // [rows, ldxb]
  RoundRowsBf16(x.data(), in, rows, w, xb.data(), ldxb);
  std::vector<float> y(static_cast<size_t>(rows * ldy), -7.0f);  // [rows, ldy]
  const int64_t row_blocks = (rows + row_step - 1) / row_step;
  const int64_t col_blocks = (out + col_step - 1) / col_step;
  ParallelTasks(row_blocks * col_blocks, 0, [&](int64_t t, int) {
    const int64_t r0 = t / col_blocks * row_step, c0 = t % col_blocks * col_step;
    Block(k, xb.data() + r0 * ldxb, ldxb, std::min(row_step, rows - r0), w,
          {c0, std::min(out, c0 + col_step), y.data() + r0 * ldy, ldy, act});
  });
  return y;
}

struct Shape {
  int64_t rows, in, out;
};

// Against the twin: odd and even in, out not a multiple of 32, 1 to 17 rows,
// column blocks starting past 0, every activation, with and without a bias,
// and a row of denormals (which vdpbf16ps flushes: the bound allows for it).
TEST(Bf16Test, ProductMatchesTheNaiveTwinOnEveryKernel) {
  IsaGuard guard;
  std::vector<Shape> shapes = {{1, 1, 1},   {4, 16, 32},  {5, 33, 33},   {8, 129, 64},
                               {9, 2, 100}, {12, 96, 65}, {13, 255, 40}, {16, 512, 96}};
  for (int64_t rows = 1; rows <= 17; ++rows) shapes.push_back({rows, 2 * rows + 1, 3 * rows + 2});
  for (const Kernel& k : EveryKernel()) {
    for (const Shape& s : shapes) {
      std::vector<float> x = Random(s.rows * s.in, 6, -2.0f, 2.0f);  // [rows, in]
      if (s.rows > 2) {
        for (int64_t i = 0; i < s.in; ++i) x[2 * s.in + i] = 1e-39f * (i % 3 - 1.0f);
      }
      const std::vector<float> wf = Random(s.out * s.in, 7),
                               b = Random(s.out, 8);  // [out, in], [out]
      const std::vector<uint16_t> wb = NaiveBf16Weights(wf.data(), s.out * s.in);  // [out, in]
      for (const float* bias : {b.data(), static_cast<const float*>(nullptr)}) {
        const Bf16Weights w(wf.data(), bias, s.out, s.in);
        const std::vector<Bf16Output> want =
            NaiveBf16Product(x.data(), s.rows, s.in, wb.data(), bias, s.out);
        for (Activation act : kActivations) {
          // In blocks of 32 columns (col_begin 32, 64, ... past the first), into
          // y: [rows, out + 5], the 5 values past out never written.
          const int64_t ldy = s.out + 5;
          std::vector<float> y = Product(k, x, s.rows, w, act, {1 << 20, 32, ldy});
          int bad = 0;
          for (int64_t r = 0; r < s.rows; ++r) {
            for (int64_t c = 0; c < ldy; ++c) {
              const float got = y[r * ldy + c];
              if (c >= s.out) {
                EXPECT_EQ(got, -7.0f) << "written past out";
                continue;
              }
              const Bf16Output& o = want[r * s.out + c];
              const double ref = ReferenceActivation(act, o.sum);
              if (!(std::fabs(got - ref) <= Bf16Allowance(o, s.in, act)) && ++bad <= 3) {
                ADD_FAILURE() << k.name << " " << ToString(act) << " rows " << s.rows << " in "
                              << s.in << " out " << s.out << " bias " << (bias != nullptr)
                              << " at (" << r << ", " << c << "): got " << got << ", want " << ref
                              << " ± " << Bf16Allowance(o, s.in, act);
              }
            }
          }
        }
      }
    }
  }
}

// The public entry runs the target's kernel: on avx512, vdpbf16ps where the
// CPU has AVX512-BF16 (its sums round differently from the widening kernel's,
// so a wrong choice shows in the bits).
TEST(Bf16Test, PublicEntryRunsTheTargetsKernel) {
  IsaGuard guard;
  const int64_t rows = 9, in = 301, out = 70;
  std::vector<float> x = Random(rows * in, 9);  // [rows, in]
  // Row 4 all denormal: vdpbf16ps flushes it to exactly 0, FMAs do not.
  for (int64_t i = 0; i < in; ++i) x[4 * in + i] = 3e-39f;
  const std::vector<float> wf = Random(out * in, 10, 0.5f, 1.0f);  // [out, in]
  const Bf16Weights w(wf.data(), nullptr, out, in);
#if defined(__x86_64__)
  if (HasAvx512Bf16()) {  // the two avx512 kernels differ, so a wrong choice would show
    EXPECT_FALSE(SameBits(Product({"avx512bf16", Isa::kAvx512, avx512bf16::Bf16Panel}, x, rows, w,
                                  Activation::kIdentity),
                          Product({"avx512 widening", Isa::kAvx512, avx512::Bf16Panel}, x, rows, w,
                                  Activation::kIdentity)));
  }
#endif
  for (Isa isa : AvailableIsas()) {
    PanelFn expected = portable::Bf16Panel;
#if defined(__x86_64__)
    if (isa == Isa::kAvx2) expected = avx2::Bf16Panel;
    if (isa == Isa::kAvx512 || isa == Isa::kAmx) {  // amx: avx512's panels for these weights
      expected = UsesBf16Dot() ? avx512bf16::Bf16Panel : avx512::Bf16Panel;
    }
#endif
    const std::vector<float> got =
        Product({IsaName(isa), isa, nullptr}, x, rows, w, Activation::kIdentity);
    const std::vector<float> want =
        Product({"direct", isa, expected}, x, rows, w, Activation::kIdentity);
    EXPECT_TRUE(SameBits(got, want)) << IsaName(isa);
  }
}

TEST(Bf16Test, SameBitsForAnySplitAndThreadCount) {
  IsaGuard guard;
  const int64_t rows = 37, in = 515, out = 161;
  const std::vector<float> x = Random(rows * in, 11), wf = Random(out * in, 12);
  const std::vector<float> b = Random(out, 13);
  const Bf16Weights w(wf.data(), b.data(), out, in);
  for (const Kernel& k : EveryKernel()) {
    for (Activation act : kActivations) {
      SetNumThreads(1);
      const std::vector<float> whole = Product(k, x, rows, w, act);
      for (int threads : {1, 2}) {
        SetNumThreads(threads);
        for (int64_t row_step : {1, 5, 8, 13, 64}) {
          for (int64_t col_step : {32, 96, 256}) {
            EXPECT_TRUE(SameBits(Product(k, x, rows, w, act, {row_step, col_step}), whole))
                << k.name << " " << ToString(act) << " threads " << threads << " rows by "
                << row_step << " columns by " << col_step;
          }
        }
      }
    }
  }
}

// The kernels that widen to float add the same exact products in the same
// order from the bias on, one rounding per add: a multiply and an add (portable)
// round as a fused multiply-add does when the product is exact, so avx512
// without AVX512-BF16, avx2 and portable give the same bits (for products that
// are normal floats; vdpbf16ps rounds its own way).
TEST(Bf16Test, WideningKernelsGiveTheSameBits) {
  IsaGuard guard;
  const int64_t rows = 19, in = 777, out = 75;
  const std::vector<float> x = Random(rows * in, 20),
                           wf = Random(out * in, 21);  // [rows, in], [out, in]
  const std::vector<float> b = Random(out, 22);
  const Bf16Weights w(wf.data(), b.data(), out, in);
  std::vector<Kernel> widening;
  for (const Kernel& k : EveryKernel()) {
    const bool avx512 = k.isa == Isa::kAvx512 || k.isa == Isa::kAmx;
    if (!avx512 || k.direct != nullptr || !UsesBf16Dot()) widening.push_back(k);
  }
  ASSERT_FALSE(widening.empty());
  const std::vector<float> want = Product(widening.back(), x, rows, w, Activation::kGelu);
  for (const Kernel& k : widening) {
    EXPECT_TRUE(SameBits(Product(k, x, rows, w, Activation::kGelu), want)) << k.name;
  }
}

// A NaN or an infinity in a row of x reaches that row only: the other rows
// keep the bits they have without it; a NaN row is NaN through every
// activation (relu too), an infinite row is infinite where the product is.
TEST(Bf16Test, NonFiniteInputsStayInTheirRow) {
  IsaGuard guard;
  const int64_t rows = 11, in = 67, out = 45, nan_row = 2, inf_row = 9, at = 40;
  const std::vector<float> clean = Random(rows * in, 14), wf = Random(out * in, 15, 0.01f, 1.0f);
  const Bf16Weights w(wf.data(), Random(out, 16).data(), out, in);
  std::vector<float> x = clean;
  x[nan_row * in + at] = kNaN;
  x[inf_row * in + 3] = kInf;
  for (const Kernel& k : EveryKernel()) {
    for (Activation act : kActivations) {
      const std::vector<float> want = Product(k, clean, rows, w, act);
      const std::vector<float> got = Product(k, x, rows, w, act);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < out; ++c) {
          const float g = got[r * out + c];
          const std::string where = k.name + " " + ToString(act) + " (" + std::to_string(r) + ", " +
                                    std::to_string(c) + ")";
          if (r == nan_row) {
            EXPECT_TRUE(std::isnan(g)) << where << ": " << g;
          } else if (r == inf_row) {
            // Every weight is positive: the sum is +inf, and so is every activation of it.
            EXPECT_EQ(g, kInf) << where;
          } else {
            EXPECT_EQ(BitsOf(g), BitsOf(want[r * out + c])) << where;
          }
        }
      }
    }
  }
}

// The definition against float math: the product stays within bf16's
// rounding (2^-8 relative for each factor) of the float32 layer's exact value,
// and the rounding is real: at some output the float product lies outside the
// twin's bound, so the twin would catch a kernel that skipped it.
TEST(Bf16Test, CloseToTheFloatProductYetNotIt) {
  IsaGuard guard;
  const int64_t rows = 8, in = 512, out = 96;
  const std::vector<float> x = Random(rows * in, 17), wf = Random(out * in, 18);
  const std::vector<float> b = Random(out, 19);
  const Bf16Weights w(wf.data(), b.data(), out, in);
  const std::vector<Bf16Output> twin = NaiveBf16Product(
      x.data(), rows, in, NaiveBf16Weights(wf.data(), out * in).data(), b.data(), out);
  int outside_twin_bound = 0;
  for (const Kernel& k : EveryKernel()) {
    const std::vector<float> y = Product(k, x, rows, w, Activation::kIdentity);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < out; ++c) {
        double exact = b[c], magnitude = std::fabs(b[c]);
        for (int64_t i = 0; i < in; ++i) {
          exact += double{x[r * in + i]} * wf[c * in + i];
          magnitude += std::fabs(double{x[r * in + i]} * wf[c * in + i]);
        }
        const double bound = (std::ldexp(1.0, -7) + std::ldexp(1.0, -16)) * magnitude +
                             Bf16Allowance(twin[r * out + c], in, Activation::kIdentity);
        EXPECT_LE(std::fabs(y[r * out + c] - exact), bound) << k.name << " " << r << " " << c;
        const Bf16Output& o = twin[r * out + c];
        if (std::fabs(exact - o.sum) > Bf16Allowance(o, in, Activation::kIdentity)) {
          ++outside_twin_bound;
        }
      }
    }
  }
  EXPECT_GT(outside_twin_bound, 0);
}

TEST(Bf16Test, EmptyShapesWriteTheBiasOrNothing) {
  IsaGuard guard;
  const float b[3] = {0.5f, -1.0f, 2.0f};
  const Bf16Weights w(static_cast<const float*>(nullptr), b, 3, 0);
  EXPECT_EQ(w.row_values(), 0);
  for (const Kernel& k : EveryKernel()) {
    const std::vector<float> y = Product(k, {}, 2, w, Activation::kRelu);
    EXPECT_EQ(y, (std::vector<float>{0.5f, 0.0f, 2.0f, 0.5f, 0.0f, 2.0f})) << k.name;
    EXPECT_TRUE(Product(k, {}, 0, w, Activation::kRelu).empty()) << k.name;
  }
}

}  // namespace
}  // namespace phasor::kernels

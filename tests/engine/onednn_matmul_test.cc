// The amx target's products through oneDNN (engine/kernels/onednn_matmul.h),
// run on every CPU that has the target (forced where the CPU has no AMX:
// oneDNN then takes its AVX-512 kernels; ONEDNN_MAX_CPU_ISA narrows them
// further, ctest onednn_avx512_core_vnni): int8 outputs the same bits as the
// avx512 target's (VNNI) for every activation and portable's (but SiLU, an
// ulp apart there), for zero, tiny and
// non-finite rows and channels; bf16 within float32 rounding of the naive twin
// (tests/support/reference_bf16.h); a row's bits the same alone as at any
// place in a batch; and the start-up choices (amx first only where oneDNN has
// AMX; vdpbf16ps only where it is not slower than FMA).
#include "engine/kernels/onednn_matmul.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "engine/cpu.h"
#include "engine/kernels/dot_rate.h"
#include "engine/kernels/gemm_bf16.h"
#include "engine/kernels/gemm_int8.h"
#include "engine/kernels/kernel_table.h"
#include "tests/support/kernel_test_util.h"
#include "tests/support/reference_bf16.h"
#include "tests/support/reference_kernels.h"

namespace phasor::kernels {
namespace {

using phasor::testing::IsaGuard;
using phasor::testing::Random;
using phasor::testing::SameBits;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr Activation kActivations[] = {Activation::kIdentity, Activation::kRelu, Activation::kGelu,
                                       Activation::kGeluTanh, Activation::kSilu};

uint32_t BitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

struct Case {
  int64_t rows, in, out;
};

// Shapes with a partial last call of kOnednnRows rows, odd in, out not a
// multiple of 32, and an encoder's (768 -> 3072 over 70 rows).
const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {{1, 1, 1},     {3, 5, 7},     {31, 33, 65},  {32, 64, 32},
                                          {33, 129, 40}, {70, 768, 96}, {65, 96, 3072}};
  return cases;
}

// y [rows, out] of the int8 layer made and run on isa: rows quantized, the
// product over every column.
std::vector<float> Int8Layer(Isa isa, const std::vector<float>& x, const std::vector<float>& w,
                             const std::vector<float>& b, const Case& c, Activation act) {
  SetIsa(isa);
  const Int8Weights weights(w.data(), b.data(), c.out, c.in);
  EXPECT_EQ(weights.onednn() != nullptr, isa == Isa::kAmx);
  const int64_t ldq = weights.row_bytes() + 4;
  std::vector<uint8_t> q(static_cast<size_t>(c.rows * ldq));
  std::vector<float> scales(static_cast<size_t>(c.rows));
  QuantizeRowsInt8(x.data(), c.in, c.rows, weights, {q.data(), ldq, scales.data()});
  std::vector<float> y(static_cast<size_t>(c.rows * c.out), -7.0f);
  Int8LinearBlock(q.data(), ldq, scales.data(), c.rows, weights, {0, c.out, y.data(), c.out, act});
  return y;
}

// Hostile rows and channels: a zero row, a row below int8's smallest scale,
// a NaN row, an infinite one; an all-zero channel and an infinite one.
void MakeHostile(std::vector<float>& x, std::vector<float>& w, const Case& c) {
  const auto row = [&](int64_t r) { return x.begin() + r * c.in; };
  if (c.rows > 4) {
    std::fill(row(0), row(1), 0.0f);
    std::fill(row(1), row(2), 1e-38f);
    x[2 * c.in + c.in / 2] = kNaN;
    x[3 * c.in] = -kInf;
  }
  if (c.out > 3) {
    std::fill(w.begin(), w.begin() + c.in, 0.0f);
    w[2 * c.in] = kInf;
  }
}

TEST(OnednnMatmulTest, Int8GivesTheVnniTargetsBits) {
  SKIP_WITHOUT_AMX_TARGET();
  IsaGuard guard;
  for (const Case& c : Cases()) {
    std::vector<float> x = Random(c.rows * c.in, 1, -3.0f, 3.0f), w = Random(c.out * c.in, 2);
    const std::vector<float> b = Random(c.out, 3);
    MakeHostile(x, w, c);
    for (Activation act : kActivations) {
      const std::vector<float> amx = Int8Layer(Isa::kAmx, x, w, b, c, act);
      for (Isa isa : {Isa::kAvx512, Isa::kPortable}) {
        // portable's SiLU is within an ulp of the vector targets' (activations.h).
        if (isa == Isa::kPortable && act == Activation::kSilu) continue;
        const std::vector<float> want = Int8Layer(isa, x, w, b, c, act);
        for (size_t i = 0; i < want.size(); ++i) {
          ASSERT_EQ(BitsOf(amx[i]), BitsOf(want[i]))
              << c.rows << "x" << c.in << "->" << c.out << " " << ToString(act) << " vs "
              << IsaName(isa) << ": row " << i / c.out << " col " << i % c.out << " got " << amx[i]
              << " want " << want[i];
        }
      }
    }
  }
}

// y [rows, out] of the bf16 layer made and run on the amx target.
std::vector<float> Bf16Layer(const std::vector<float>& x, const Bf16Weights& w, int64_t rows,
                             Activation act) {
  const int64_t ldxb = w.row_values() + 6;
  std::vector<uint16_t> xb(static_cast<size_t>(rows * ldxb));
  RoundRowsBf16(x.data(), w.in(), rows, w, xb.data(), ldxb);
  std::vector<float> y(static_cast<size_t>(rows * w.out()), -7.0f);
  Bf16LinearBlock(xb.data(), ldxb, rows, w, {0, w.out(), y.data(), w.out(), act});
  return y;
}

// GELU's tanh form and SiLU are oneDNN's own approximations: within 1e-5
// (relative, plus absolute) of the exact function, on top of the sum's bound.
double Allowance(const testing::Bf16Output& o, int64_t in, Activation act) {
  const double sums = testing::Bf16Allowance(o, in, act);
  if (act != Activation::kGeluTanh && act != Activation::kSilu) return sums;
  return 1.2 * sums + 1e-5 * (1.0 + std::fabs(testing::ReferenceActivation(act, o.sum)));
}

TEST(OnednnMatmulTest, Bf16MatchesTheNaiveTwin) {
  SKIP_WITHOUT_AMX_TARGET();
  IsaGuard guard;
  SetIsa(Isa::kAmx);
  for (const Case& c : Cases()) {
    const std::vector<float> x = Random(c.rows * c.in, 4, -2.0f, 2.0f),
                             wf = Random(c.out * c.in, 5), b = Random(c.out, 6);
    const std::vector<uint16_t> wb = testing::NaiveBf16Weights(wf.data(), c.out * c.in);
    const Bf16Weights from_float(wf.data(), b.data(), c.out, c.in);
    const Bf16Weights from_bf16(wb.data(), b.data(), c.out, c.in);
    ASSERT_NE(from_float.onednn(), nullptr);
    const auto want = testing::NaiveBf16Product(x.data(), c.rows, c.in, wb.data(), b.data(), c.out);
    for (Activation act : kActivations) {
      const std::vector<float> y = Bf16Layer(x, from_float, c.rows, act);
      EXPECT_TRUE(SameBits(y, Bf16Layer(x, from_bf16, c.rows, act))) << ToString(act);
      for (size_t i = 0; i < y.size(); ++i) {
        const double v = testing::ReferenceActivation(act, want[i].sum);
        ASSERT_LE(std::fabs(y[i] - v), Allowance(want[i], c.in, act))
            << c.rows << "x" << c.in << "->" << c.out << " " << ToString(act) << ": row "
            << i / c.out << " col " << i % c.out << " got " << y[i] << " want " << v;
      }
    }
  }
}

TEST(OnednnMatmulTest, Bf16NonFiniteInputsStayInTheirRow) {
  SKIP_WITHOUT_AMX_TARGET();
  IsaGuard guard;
  SetIsa(Isa::kAmx);
  const int64_t rows = 40, in = 67, out = 45, nan_row = 2, inf_row = 35;
  const std::vector<float> clean = Random(rows * in, 7), wf = Random(out * in, 8, 0.01f, 1.0f);
  const Bf16Weights w(wf.data(), Random(out, 9).data(), out, in);
  std::vector<float> x = clean;
  x[nan_row * in + 40] = kNaN;
  x[inf_row * in + 3] = kInf;
  for (Activation act : kActivations) {
    const std::vector<float> want = Bf16Layer(clean, w, rows, act),
                             got = Bf16Layer(x, w, rows, act);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < out; ++c) {
        const float g = got[r * out + c];
        if (r == nan_row) {
          EXPECT_TRUE(std::isnan(g)) << ToString(act) << " " << c;
        } else if (r == inf_row) {
          // Every weight is positive: the sum is +inf, and so is every activation of it.
          EXPECT_EQ(g, kInf) << ToString(act) << " " << c;
        } else {
          EXPECT_EQ(BitsOf(g), BitsOf(want[r * out + c])) << ToString(act) << " " << r;
        }
      }
    }
  }
}

// Row r of a batch of 70 gives the bits it gives alone and in a batch that
// starts elsewhere: every call is kOnednnRows rows of one primitive.
TEST(OnednnMatmulTest, ARowAloneGivesItsBitsInABatch) {
  SKIP_WITHOUT_AMX_TARGET();
  IsaGuard guard;
  SetIsa(Isa::kAmx);
  const int64_t rows = 70, in = 384, out = 160;
  const std::vector<float> x = Random(rows * in, 10), wf = Random(out * in, 11),
                           b = Random(out, 12);
  const Bf16Weights bf16(wf.data(), b.data(), out, in);
  const std::vector<float> batch = Bf16Layer(x, bf16, rows, Activation::kGelu);
  const Case all{rows, in, out};
  const std::vector<float> batch8 = Int8Layer(Isa::kAmx, x, wf, b, all, Activation::kGelu);
  for (int64_t r : {0, 5, 31, 32, 45, 69}) {
    for (int64_t n : {int64_t{1}, rows - r}) {  // alone, and from r to the end
      const std::vector<float> part(x.begin() + r * in, x.begin() + (r + n) * in);
      const std::vector<float> y = Bf16Layer(part, bf16, n, Activation::kGelu);
      const std::vector<float> y8 =
          Int8Layer(Isa::kAmx, part, wf, b, {n, in, out}, Activation::kGelu);
      for (int64_t c = 0; c < out; ++c) {
        ASSERT_EQ(BitsOf(y[c]), BitsOf(batch[r * out + c])) << "bf16 row " << r << " of " << n;
        ASSERT_EQ(BitsOf(y8[c]), BitsOf(batch8[r * out + c])) << "int8 row " << r << " of " << n;
      }
    }
  }
}

TEST(OnednnMatmulTest, EmptyShapesGiveTheBiasOrZero) {
  SKIP_WITHOUT_AMX_TARGET();
  IsaGuard guard;
  SetIsa(Isa::kAmx);
  const std::vector<float> b = {1.5f, -2.0f, 0.25f};
  const Bf16Weights w(static_cast<const float*>(nullptr), b.data(), 3, 0);
  std::vector<float> y(6, -7.0f);
  Bf16LinearBlock(nullptr, 0, 2, w, {0, 3, y.data(), 3, Activation::kRelu});
  EXPECT_EQ(y, (std::vector<float>{1.5f, 0.0f, 0.25f, 1.5f, 0.0f, 0.25f}));
}

// The start-up choice: amx is the first target only where oneDNN reports AMX
// (elsewhere its products are oneDNN's AVX-512 ones, no faster than phasor's);
// the avx512 table's bf16 panel is vdpbf16ps's only where that does not lose
// to the float32 FMA.
TEST(OnednnMatmulTest, AmxIsChosenOnlyWhereOneDnnHasAmx) {
  const std::vector<Isa> isas = AvailableIsas();
  ASSERT_FALSE(isas.empty());
  EXPECT_EQ(isas.front() == Isa::kAmx, HasAmx()) << testing::TargetNames();
  EXPECT_EQ(isas.back(), Isa::kPortable);
  if (HasAmx()) {
    EXPECT_NE(std::string(OnednnBf16Kernel()).find("amx"), std::string::npos);
  }
}

TEST(OnednnMatmulTest, Bf16DotOnlyWhereItIsNotSlowerThanFma) {
  // Sapphire Rapids' figures (BM_Bf16Peak 70, BM_Fp32Peak 160 GFLOP/s a core).
  EXPECT_FALSE(Bf16DotPaysOff(70e9, 160e9));
  EXPECT_TRUE(Bf16DotPaysOff(320e9, 160e9));
  EXPECT_TRUE(Bf16DotPaysOff(160e9, 160e9));
  if (!HasAvx512Bf16()) {
    EXPECT_FALSE(UsesBf16Dot());
    return;
  }
  const KernelTable& avx512 = TableOf(Isa::kAvx512);
  EXPECT_EQ(avx512.bf16_panel == &avx512bf16::Bf16Panel, UsesBf16Dot());
  const DotRates rates = avx512bf16::MeasureDotRates();
  EXPECT_GT(rates.bf16_flops_per_s, 0.0);
  EXPECT_GT(rates.fp32_flops_per_s, 0.0);
}

}  // namespace
}  // namespace phasor::kernels

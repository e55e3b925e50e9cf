// The portable kernels that other targets are measured against, bit for bit
// against naive twins written here in the operation order their contracts
// give (kernel_table.h, exp_scalar.inc): one multiply and one add rounded
// apart per k for the float product, and the floor of the library for exp.
// The portable kernels are laid out for the vectoriser (register tiles,
// truncation in place of floor); these twins are not. Values are compared
// bit for bit; NaN only as NaN (which NaN an add of two returns is the
// compiler's choice of operand order). Runs wherever the engine is built,
// aarch64 included (make cross-aarch64).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/kernels/kernel_table.h"
#include "tests/support/kernel_test_util.h"

namespace phasor::kernels {
namespace {

using phasor::testing::Random;

// Equal bits, or both NaN.
bool SameValue(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// c[r, j] = relu?(init + Σ_k a[r, k]·panel[k, j]) in k order, the product and
// the sum each rounded (volatile: no contraction, whatever the flags).
void NaivePanel(const PanelArgs& p) {
  for (int64_t r = 0; r < p.rows; ++r) {
    for (int64_t j = 0; j < p.n_valid; ++j) {
      float c = p.accumulate ? p.c[r * p.ldc + j] : p.bias[j];
      for (int64_t k = 0; k < p.k; ++k) {
        volatile float product = p.a[r * p.lda + k] * p.panel[k * p.ldp + j];
        c = c + product;
      }
      p.c[r * p.ldc + j] = p.relu ? std::max(c, 0.0f) : c;
    }
  }
}

TEST(PortableKernelsTest, FloatPanelIsTheNaiveSumInKOrder) {
  for (int64_t rows : {1, 2, 5, 6, 7, 12, 13}) {
    for (int64_t k : {0, 1, 9, 64}) {
      for (int64_t n_valid : {1, 17, 31, 32}) {
        for (int64_t ldp : {32, 37}) {
          for (int mode = 0; mode < 4; ++mode) {
            const bool accumulate = mode & 1, relu = mode & 2;
            const int64_t lda = k + 3, ldc = n_valid + 2;
            std::vector<float> a = Random(rows * lda, 7, -2.0f, 2.0f);
            const std::vector<float> panel = Random(std::max<int64_t>(k, 1) * ldp, 8, -1.0f, 1.0f);
            const std::vector<float> bias = Random(32, 9, -1.0f, 1.0f);
            if (rows * lda > 3) a[3] = std::numeric_limits<float>::quiet_NaN();
            const std::vector<float> c0 = Random(rows * ldc, 10, -1.0f, 1.0f);
            std::vector<float> got = c0, want = c0;
            PanelArgs p{a.data(),    lda,        rows, panel.data(), ldp, k,
                        bias.data(), accumulate, relu, got.data(),   ldc, n_valid};
            portable::GemmPanel(p);
            p.c = want.data();
            NaivePanel(p);
            for (size_t i = 0; i < got.size(); ++i) {
              ASSERT_TRUE(SameValue(got[i], want[i]))
                  << "rows " << rows << " k " << k << " n_valid " << n_valid << " ldp " << ldp
                  << " mode " << mode << " at " << i << ": " << got[i] << " vs " << want[i];
            }
          }
        }
      }
    }
  }
}

// The formula ExpScalar computes, with the library's floor and ldexp:
// Cephes' reduction, then the degree-6 polynomial (exp_scalar.inc's
// coefficients, a multiply and an add rounded apart).
float NaiveExp(float t) {
  constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f;
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kC[7] = {1.0f,
                           1.0f,
                           0.4999999403953552f,
                           0.16666431725025177f,
                           0.04166800156235695f,
                           0.00837415549904108f,
                           0.0013843652559444308f};
  if (std::isnan(t)) return t;
  t = std::min(std::max(t, -87.33654f), 88.0f);
  const float fx = std::floor(t * kLog2e + 0.5f);
  t = t - fx * kLn2Hi;
  t = t - fx * kLn2Lo;
  float y = kC[6];
  for (int i = 5; i >= 0; --i) y = y * t + kC[i];
  return std::ldexp(y, static_cast<int>(fx));
}

TEST(PortableKernelsTest, ExpIsItsFormulaWithTheLibraryFloor) {
  // Every 997th float in [-130, 130], both signs, and the steps of 2^n.
  std::vector<float> x;
  for (uint32_t b = 0; b < 0x43020000u; b += 997) {
    float v;
    std::memcpy(&v, &b, sizeof v);
    x.insert(x.end(), {v, -v});
  }
  for (int k = -126; k <= 128; ++k) {
    const float t = (static_cast<float>(k) - 0.5f) / 1.44269504088896341f;
    x.insert(x.end(), {std::nextafter(t, -1e9f), t, std::nextafter(t, 1e9f)});
  }
  x.insert(x.end(),
           {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
            -std::numeric_limits<float>::infinity(), 0.0f});
  std::vector<float> out(x.size());
  const int64_t n = static_cast<int64_t>(x.size());
  portable::ExpShifted(x.data(), 0.0f, n, out.data());
  for (int64_t i = 0; i < n; ++i) {
    const float want = x[i] == -std::numeric_limits<float>::infinity() ? 0.0f : NaiveExp(x[i]);
    ASSERT_TRUE(SameValue(out[i], want)) << x[i] << ": " << out[i] << " vs " << want;
  }
}

}  // namespace
}  // namespace phasor::kernels

// The kernel list (engine/kernels/kernel_list.inc) against the tables it
// makes: on every target this CPU has, each entry is that target's own
// variant exactly where the list says so and portable's elsewhere, and each
// kernel of the list has a test that runs it on every target against the
// portable one (a new kernel without one fails here).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/cpu.h"
#include "engine/kernels/kernel_table.h"

namespace phasor::kernels {
namespace {

// The tests (suite.name) that run each kernel on every target against the
// portable one.
const std::map<std::string, std::vector<std::string>>& CrossTargetTests() {
  static const std::map<std::string, std::vector<std::string>> tests = {
      {"gemm_panel",
       {"IsaTest.PackedProductAgreesAcrossTargetsAndWithDoubleForAnyThreadCount",
        "IsaTest.GemmPanelsAccumulatesAlikeOnEveryTarget"}},
      {"int8_panel", {"Int8KernelTest.EveryPanelKernelGivesTheSameBits"}},
      {"int8_max_abs",
       {"Int8KernelTest.MatchesTheNaiveTwinOnEveryTargetWithTheSameBits",
        "Int8KernelTest.NonFiniteRowsAndChannelsGiveNaNThereOnly",
        "Int8KernelTest.RowKernelsFindTheLargestMagnitudeAndClampOnEveryTarget"}},
      {"int8_quantize",
       {"Int8KernelTest.MatchesTheNaiveTwinOnEveryTargetWithTheSameBits",
        "Int8KernelTest.QuantizationRoundsHalfToEven",
        "Int8KernelTest.RowKernelsFindTheLargestMagnitudeAndClampOnEveryTarget"}},
      {"bf16_panel", {"Bf16Test.ProductMatchesTheNaiveTwinOnEveryKernel"}},
      {"bf16_round", {"Bf16Test.RoundRowsMatchesTheTwinAndZeroesThePad"}},
      {"bf16_pair_rows",
       {"Bf16Test.PairRowsInterleavesTwoRoundedRowsOnEveryTarget",
        "AttentionBf16Test.PackedKeysAndValuesFollowTheHeaderLayoutsOnEveryTarget"}},
      {"transpose_panels", {"IsaTest.KeyPanelsFollowTheLayoutOnEveryTarget"}},
      {"stream_fence", {"IsaTest.RowKernelsGiveTheSameBitsOnEveryTarget"}},
      {"turn_rows", {"IsaTest.RowKernelsGiveTheSameBitsOnEveryTarget"}},
      {"rotate_heads", {"IsaTest.RotateHeadsGivesTheSameBitsOnEveryTargetAndTheRotation"}},
      {"turn_pairs", {"IsaTest.TurnPairsGivesTheSameBitsOnEveryTarget"}},
      {"scale_add_row", {"IsaTest.RowKernelsGiveTheSameBitsOnEveryTarget"}},
      {"scale_row", {"IsaTest.RowKernelsGiveTheSameBitsOnEveryTarget"}},
      {"fill_row", {"IsaTest.RowKernelsGiveTheSameBitsOnEveryTarget"}},
      {"exp_shifted", {"IsaTest.ExpIsWithinTwoUlpOnEveryTargetAndTheSameBitsWhereFused"}},
      {"exp_sum", {"IsaTest.ExpShiftedSumIsExpShiftedThenSumOnEveryTarget"}},
      {"exp_bf16",
       {"IsaTest.ExpBf16SumRoundsExpOnEveryTarget",
        "IsaTest.ExpBf16OfAvx512Bf16GivesTheAvx512TargetsBits",
        "IsaTest.ExpBf16SumIsTheRoundedExactExpForAlmostEveryValue"}},
      {"row_max", {"IsaTest.MaxIsTheLargestValueOnEveryTarget"}},
      {"gelu_erf", {"IsaTest.GeluErfIsEigensExpressionOnEveryTarget"}},
      {"half_to_float", {"HalfTest.EveryValueConvertsExactlyOnEveryTarget"}},
      {"layer_norm_rows", {"IsaTest.LayerNormGivesTheSameBitsOnEveryTarget"}},
  };
  return tests;
}

TEST(KernelListTest, EachTargetHasItsOwnVariantExactlyWhereTheListSaysSo) {
  const KernelTable& portable = TableOf(Isa::kPortable);
  for (Isa isa : AvailableIsas()) {
    const KernelTable& table = TableOf(isa);
    for (int i = 0; i < kKernelCount; ++i) {
      const KernelInfo& k = kKernelList[i];
      const void* entry = KernelAddress(table, i);
      ASSERT_NE(entry, nullptr) << IsaName(isa) << " " << k.entry;
      const bool own = isa == Isa::kAvx512 || isa == Isa::kAmx ? k.avx512
                       : isa == Isa::kAvx2                     ? k.avx2
                                                               : true;
      if (isa == Isa::kPortable) continue;
      EXPECT_EQ(entry != KernelAddress(portable, i), own) << IsaName(isa) << " " << k.entry;
    }
  }
}

TEST(KernelListTest, TheChosenTargetsTableIsTheOneInUse) {
  const KernelTable& active = TableOf(ActiveIsa());
  for (int i = 0; i < kKernelCount; ++i) {
    EXPECT_EQ(KernelAddress(Kernels(), i), KernelAddress(active, i)) << kKernelList[i].entry;
  }
}

TEST(KernelListTest, EveryKernelHasACrossTargetTest) {
  std::set<std::string> registered;
  const auto* unit = ::testing::UnitTest::GetInstance();
  for (int s = 0; s < unit->total_test_suite_count(); ++s) {
    const auto* suite = unit->GetTestSuite(s);
    for (int t = 0; t < suite->total_test_count(); ++t) {
      registered.insert(std::string(suite->name()) + "." + suite->GetTestInfo(t)->name());
    }
  }
  EXPECT_EQ(static_cast<size_t>(kKernelCount), CrossTargetTests().size());
  for (const KernelInfo& k : kKernelList) {
    const auto tests = CrossTargetTests().find(k.entry);
    ASSERT_NE(tests, CrossTargetTests().end()) << k.entry << " has no cross-target test";
    for (const std::string& name : tests->second) {
      EXPECT_EQ(registered.count(name), 1u) << k.entry << ": no test " << name;
    }
  }
}

}  // namespace
}  // namespace phasor::kernels

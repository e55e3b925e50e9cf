// The encoder against PyTorch's nn.TransformerEncoder on the same weights, on
// the golden cases of tests/data/golden (see tests/support/golden.h).
#include <gtest/gtest.h>

#include "tests/support/golden.h"

namespace phasor {
namespace {

class ParityTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ParityTest, MatchesPyTorch) { testing::ExpectMatchesGolden(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Golden, ParityTest,
                         ::testing::Values("post_ln_relu", "pre_ln_gelu_final_norm",
                                           "split_half_minus_one", "interleaved_half_minus_one",
                                           "split_d_model", "offset_scale", "ragged_padding",
                                           "d96_h6", "learned", "base_500", "long_ragged_h64",
                                           "key_tiles_h64"));

}  // namespace
}  // namespace phasor

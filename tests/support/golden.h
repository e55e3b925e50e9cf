// The golden cases of tests/data/golden, made by tests/data/make_golden.py with
// PyTorch (float32, eval mode) and read without it. A case is a directory with
// config.json, model.safetensors, tokens.txt (one unpadded sequence a line),
// embeddings.npy (the encoder's input x, computed in float64 and rounded once)
// and expected.npy (nn.TransformerEncoder's output, 0 at padded positions),
// both float32 [batch, seq, d_model].
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/npy.h"
#include "engine/parallel.h"
#include "models/encoder.h"
#include "models/tokens.h"
#include "tests/support/max_error.h"
#include "tests/support/paths.h"

namespace phasor::testing {

// The tolerances the goldens promise (manifest.json): embeddings 2e-6, output 1e-4.
constexpr double kGoldenEmbeddingTol = 2e-6;
constexpr double kGoldenOutputTol = 1e-4;

inline std::string GoldenDir(const std::string& name) {
  return std::string(phasor::testing::kTestDataDir) + "/golden/" + name;
}

// The error over the real (unpadded) tokens of a batch: got and want are
// [tb.batch, tb.seq, d]; positions are printed as (row, column) of the flat rows.
inline MaxError RealTokenError(const float* got, const float* want, const TokenBatch& tb,
                               int64_t d) {
  MaxError err(d);
  for (int64_t b = 0; b < tb.batch; ++b) {
    for (int64_t j = 0; j < tb.lengths[b]; ++j) {
      for (int64_t k = 0; k < d; ++k) {
        const int64_t i = (b * tb.seq + j) * d + k;
        err.Add(i, got[i], want[i]);
      }
    }
  }
  return err;
}

// Runs a golden case on 1 and 2 threads and checks both stages against
// PyTorch, and that padded positions of the output are 0; prints the errors.
inline void ExpectMatchesGolden(const std::string& name) {
  const std::string dir = GoldenDir(name);
  const auto enc = Encoder::Load(dir);
  const ModelConfig& c = enc->config();
  const TokenBatch tb = LoadTokens(dir + "/tokens.txt");
  const NpyArray x = ReadNpy(dir + "/embeddings.npy");
  const NpyArray y = ReadNpy(dir + "/expected.npy");
  ASSERT_EQ(x.shape, (std::vector<int64_t>{tb.batch, tb.seq, c.d_model}));
  ASSERT_EQ(y.shape, x.shape);
  EncoderWorkspace ws = enc->MakeWorkspace(tb.batch * tb.seq);
  const std::vector<int32_t> ids = tb.Padded(c.pad_token_id.value_or(0));  // [batch, seq]
  std::vector<float> out(x.data.size());                                   // [batch, seq, d_model]
  // The real tokens packed back to back: the same bits as the padded rows.
  std::vector<float> packed(tb.ids.size() * c.d_model);  // [tokens, d_model]
  for (int threads : {1, 2}) {
    SetNumThreads(threads);
    enc->Forward({ids.data(), tb.batch, tb.seq, tb.lengths.data()}, EncoderStage::kEmbeddings,
                 out.data(), ws);
    const MaxError ex = RealTokenError(out.data(), x.data.data(), tb, c.d_model);
    EXPECT_LE(ex, kGoldenEmbeddingTol) << name << ", embeddings, " << threads << " threads";
    enc->Forward({ids.data(), tb.batch, tb.seq, tb.lengths.data()}, EncoderStage::kFinal,
                 out.data(), ws);
    const MaxError ey = RealTokenError(out.data(), y.data.data(), tb, c.d_model);
    EXPECT_LE(ey, kGoldenOutputTol) << name << ", output, " << threads << " threads";
    enc->ForwardPacked({tb.ids.data(), tb.offsets.data(), tb.batch}, EncoderStage::kFinal,
                       packed.data(), ws);
    for (int64_t b = 0; b < tb.batch; ++b) {
      const int64_t n = tb.lengths[b] * c.d_model;
      ASSERT_TRUE(std::equal(packed.begin() + tb.offsets[b] * c.d_model,
                             packed.begin() + tb.offsets[b] * c.d_model + n,
                             out.begin() + b * tb.seq * c.d_model))
          << name << ", packed rows of sequence " << b << " differ from its padded rows";
    }
    for (int64_t b = 0; b < tb.batch; ++b) {
      for (int64_t k = tb.lengths[b] * c.d_model; k < tb.seq * c.d_model; ++k) {
        ASSERT_EQ(out[b * tb.seq * c.d_model + k], 0.0f) << name << ", padding of sequence " << b;
      }
    }
    if (threads == 2) {
      std::printf("parity %-28s embeddings max abs %.3g, output max abs %.3g\n", name.c_str(),
                  ex.value(), ey.value());
    }
  }
  SetNumThreads(0);
}

}  // namespace phasor::testing

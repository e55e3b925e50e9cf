// The one rule for the rows a call asks (commands/output_choice.h): each
// combination refused in the CLI's and in Python's words, and pool "model"
// reading the folder's modules.
#include "commands/output_choice.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engine/error.h"
#include "tests/support/hf_copy.h"

namespace phasor {
namespace {

// The message of the UsageError ask gives, "" if none.
std::string UsageOf(const OutputAsk& ask, const OptionSpelling& s,
                    const ModelFolder* folder = nullptr) {
  try {
    ResolveOutput(ask, folder, s);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

OutputAsk Ask(EncoderStage stage, const std::string& stage_text, const std::string& pool,
              bool normalize = false, bool packed = false) {
  OutputAsk a;
  a.stage = stage;
  a.stage_text = stage_text;
  a.pool = pool;
  a.normalize = normalize;
  a.packed = packed;
  return a;
}

TEST(ResolveOutput, EachCombinationRefusedInTheFrontEndsWords) {
  const OutputAsk head_pool = Ask(EncoderStage::kLogits, "logits", "mean");
  EXPECT_EQ(UsageOf(head_pool, kCliSpelling),
            "--stage logits and --pool mean do not go together: the head reads each line's first "
            "token (give --pool none)");
  EXPECT_EQ(UsageOf(head_pool, kPythonSpelling),
            "stage='logits' and pool='mean' do not go together: the head reads each sequence's "
            "first token (give pool=None)");
  const OutputAsk head_packed = Ask(EncoderStage::kPooler, "pooler", "none", false, true);
  EXPECT_EQ(UsageOf(head_packed, kCliSpelling),
            "--stage pooler and --layout packed do not go together: a head gives one row a line");
  EXPECT_EQ(UsageOf(head_packed, kPythonSpelling),
            "stage='pooler' and packed=True do not go together: a head gives one row a sequence");
  const OutputAsk normalize = Ask(EncoderStage::kFinal, "final", "none", true);
  EXPECT_EQ(UsageOf(normalize, kPythonSpelling),
            "normalize=True (normalize_embeddings=True) needs a pool (pool mean, cls, max, last, "
            "mean_sqrt_len or model): without one every token's row is returned");
  const OutputAsk packed_pool = Ask(EncoderStage::kFinal, "final", "max", false, true);
  EXPECT_EQ(UsageOf(packed_pool, kCliSpelling),
            "--layout packed and --pool max do not go together: pooled rows are one a line");
  EXPECT_EQ(UsageOf(Ask(EncoderStage::kFinal, "final", "sum"), kPythonSpelling),
            "pool must be none, mean, cls, max, last, mean_sqrt_len or model, got 'sum'");
}

TEST(ResolveOutput, WhatGoesTogether) {
  const OutputChoice a =
      ResolveOutput(Ask(EncoderStage::kFinal, "final", "cls", true), nullptr, kCliSpelling);
  EXPECT_EQ(a.pool, Pooling::kCls);
  EXPECT_TRUE(a.normalize);
  EXPECT_TRUE(a.one_row_each());
  const OutputChoice b =
      ResolveOutput(Ask(EncoderStage::kLogits, "logits", "none"), nullptr, kPythonSpelling);
  EXPECT_EQ(b.head(), HeadOutput::kLogits);
  EXPECT_TRUE(b.one_row_each());
  const OutputChoice c = ResolveOutput(
      Ask(EncoderStage::kEmbeddings, "embeddings", "none", false, true), nullptr, kCliSpelling);
  EXPECT_EQ(c.head(), HeadOutput::kNone);
  EXPECT_TRUE(c.packed);
  EXPECT_FALSE(c.one_row_each());
}

// pool "model": the folder's Pooling, Dense and Normalize (st_dense: mean,
// a Dense module, Normalize); normalize asked or declared; a folder without
// modules.json named.
TEST(ResolveOutput, ModelIsWhatTheFolderDeclares) {
  const auto st = ModelFolder::Open(testing::HfDir("st_dense"));
  const OutputChoice c =
      ResolveOutput(Ask(EncoderStage::kFinal, "final", "model"), st.get(), kPythonSpelling);
  EXPECT_EQ(c.pool, Pooling::kMean);
  EXPECT_TRUE(c.sentence_dense);
  EXPECT_TRUE(c.normalize);
  const auto plain = ModelFolder::Open(testing::HfDir("bert"));
  try {
    ResolveOutput(Ask(EncoderStage::kFinal, "final", "model"), plain.get(), kCliSpelling);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "--pool model needs a sentence-transformers folder (one with modules.json), " +
                  plain->dir() + " has none; give --pool mean, cls, max, last or mean_sqrt_len");
  }
  EXPECT_EQ(UsageOf(Ask(EncoderStage::kLogits, "logits", "model"), kCliSpelling, st.get()),
            "--stage logits and --pool model do not go together: the head reads each line's first "
            "token (give --pool none)");
}

}  // namespace
}  // namespace phasor

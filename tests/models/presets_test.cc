// Each positional preset against its family's own PE code, transcribed here
// from that code (not from the preset table) and evaluated in long double:
// token j of a right-padded sequence must get the row the family gives it.
#include "models/presets.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "engine/error.h"
#include "layers/sinusoidal.h"
#include "models/config.h"
#include "tests/support/max_error.h"

namespace phasor {
namespace {

constexpr double kExact = 2e-6;  // the PE contract

using Row = std::vector<long double>;
// The family's row for token index j (0-based, right padded), width d.
using Family = std::function<Row(int64_t j, int64_t d)>;

// concat([sin(t·inv), cos(t·inv)]) with inv_i = exp(-i·log(1e4)/(d/2 - 1)):
// tensor2tensor get_timing_signal_1d, whisper sinusoids, fairseq get_embedding
// and OpenNMT-tf SinusoidalPositionEncoder all write this, at their own t.
Row SinThenCosHalfMinusOne(long double t, int64_t d) {
  const int64_t half = d / 2;
  const long double increment = logl(10000.0L) / static_cast<long double>(half - 1);
  Row row(d);
  for (int64_t i = 0; i < half; ++i) {
    const long double inv = expl(-increment * static_cast<long double>(i));
    row[i] = sinl(t * inv);
    row[half + i] = cosl(t * inv);
  }
  return row;
}

// Attention Is All You Need 3.5: PE(pos, 2i) = sin(pos/10000^(2i/d)), 2i+1: cos.
Row Vaswani(int64_t j, int64_t d) {
  Row row(d);
  for (int64_t i = 0; i < d / 2; ++i) {
    const long double a = static_cast<long double>(j) / powl(10000.0L, 2.0L * i / d);
    row[2 * i] = sinl(a);
    row[2 * i + 1] = cosl(a);
  }
  return row;
}

// tensor2tensor: position = range(length) + start_index (0); log_timescale_increment =
// log(max/min) / max(num_timescales - 1, 1); signal = concat([sin, cos], axis=1).
Row Tensor2Tensor(int64_t j, int64_t d) {
  const int64_t num_timescales = d / 2;
  const long double increment =
      logl(1.0e4L / 1.0L) / static_cast<long double>(std::max<int64_t>(num_timescales - 1, 1));
  Row row(d);
  for (int64_t i = 0; i < num_timescales; ++i) {
    const long double scaled = static_cast<long double>(j) * 1.0L * expl(-increment * i);
    row[i] = sinl(scaled);
    row[num_timescales + i] = cosl(scaled);
  }
  return row;
}

// whisper: scaled_time = arange(length)[:, None] * inv_timescales.
Row Whisper(int64_t j, int64_t d) { return SinThenCosHalfMinusOne(j, d); }

// fairseq: make_positions gives token j (non-pad) cumsum(mask)·mask + padding_idx
// = j + 1 + padding_idx; the row is get_embedding's row at that position.
Family Fairseq(int64_t padding_idx) {
  return [padding_idx](int64_t j, int64_t d) {
    const int64_t position = (j + 1) * 1 + padding_idx;
    return SinThenCosHalfMinusOne(static_cast<long double>(position), d);
  };
}

// OpenNMT-tf: positions = tf.range(timesteps) + 1.
Row OpenNmtTf(int64_t j, int64_t d) { return SinThenCosHalfMinusOne(j + 1, d); }

// HF MarianSinusoidalPositionalEmbedding: position_enc[pos, k] = pos / 10000^(2(k//2)/dim);
// out[:, :dim/2] = sin(position_enc[:, 0::2]); out[:, dim/2:] = cos(position_enc[:, 1::2]).
Row MarianHf(int64_t j, int64_t d) {
  Row enc(d), row(d);
  for (int64_t k = 0; k < d; ++k) {
    enc[k] = static_cast<long double>(j) / powl(10000.0L, 2.0L * (k / 2) / d);
  }
  const int64_t sentinel = d / 2;
  for (int64_t k = 0; k < sentinel; ++k) row[k] = sinl(enc[2 * k]);
  for (int64_t k = 0; k < d - sentinel; ++k) row[sentinel + k] = cosl(enc[2 * k + 1]);
  return row;
}

ModelConfig Parse(const std::string& positional, const std::string& pad = "null",
                  int64_t d_model = 32) {
  return ParseConfig(R"({"vocab_size": 100, "d_model": )" + std::to_string(d_model) +
                         R"(, "n_heads": 2, "n_layers": 1, "d_ff": 8, "pad_token_id": )" + pad +
                         R"(, "positional": )" + positional + "}",
                     "config.json");
}

struct PresetCase {
  const char* preset;
  const char* pad;
  Family family;
};

TEST(PresetsTest, EachPresetMatchesItsFamilysFormula) {
  const std::vector<PresetCase> cases = {
      {"vaswani", "null", Vaswani},
      {"tensor2tensor", "null", Tensor2Tensor},
      {"whisper", "null", Whisper},
      {"fairseq", "1", Fairseq(1)},  // fairseq's default padding_idx
      {"fairseq", "0", Fairseq(0)},
      {"opennmt-tf", "null", OpenNmtTf},
      {"marian-hf", "null", MarianHf},
  };
  for (const PresetCase& pc : cases) {
    for (int64_t d : {int64_t{8}, int64_t{32}, int64_t{512}}) {
      const ModelConfig c = Parse(std::string(R"({"preset": ")") + pc.preset + R"("})", pc.pad, d);
      EXPECT_EQ(c.positional.preset, pc.preset);
      SinusoidalOptions o = c.positional.Sinusoidal(d);
      o.mode = PeMode::kOnTheFly;
      const SinusoidalEncoding pe(o);
      testing::MaxError worst(d);
      int64_t n = 0;
      for (int64_t j : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{7}, int64_t{100}, int64_t{4095},
                        int64_t{123456}}) {
        std::vector<float> row(d);
        pe.Fill(c.positional.offset + j, 1, row.data());  // the encoder's position of token j
        const Row want = pc.family(j, d);
        for (int64_t k = 0; k < d; ++k) worst.Add(n * d + k, row[k], want[k]);
        ++n;
      }
      EXPECT_LE(worst, kExact) << pc.preset << " pad " << pc.pad << " d_model " << d;
    }
  }
}

TEST(PresetsTest, TableOfValues) {
  struct Want {
    const char* name;
    PeLayout layout;
    PeDenominator denominator;
    int64_t offset;  // with pad_token_id 5
  };
  for (const Want& w : {Want{"vaswani", PeLayout::kInterleaved, PeDenominator::kDModel, 0},
                        Want{"tensor2tensor", PeLayout::kSplit, PeDenominator::kHalfMinusOne, 0},
                        Want{"whisper", PeLayout::kSplit, PeDenominator::kHalfMinusOne, 0},
                        Want{"fairseq", PeLayout::kSplit, PeDenominator::kHalfMinusOne, 6},
                        Want{"opennmt-tf", PeLayout::kSplit, PeDenominator::kHalfMinusOne, 1},
                        Want{"marian-hf", PeLayout::kSplit, PeDenominator::kDModel, 0}}) {
    const ModelConfig c = Parse(std::string(R"({"preset": ")") + w.name + R"("})", "5");
    EXPECT_EQ(c.positional.layout, w.layout) << w.name;
    EXPECT_EQ(c.positional.denominator, w.denominator) << w.name;
    EXPECT_EQ(c.positional.offset, w.offset) << w.name;
    EXPECT_EQ(c.positional.kind, PositionalKind::kSinusoidal) << w.name;
    ASSERT_NE(FindPositionalPreset(w.name), nullptr);
  }
  EXPECT_EQ(PositionalPresets().size(), 6u);
  EXPECT_EQ(FindPositionalPreset("bert"), nullptr);
  EXPECT_EQ(PositionalPresetNames(),
            "vaswani, tensor2tensor, whisper, fairseq, opennmt-tf, marian-hf");
}

TEST(PresetsTest, ExplicitKeysOverrideThePreset) {
  ModelConfig c = Parse(R"({"preset": "whisper", "layout": "interleaved"})");
  EXPECT_EQ(c.positional.layout, PeLayout::kInterleaved);
  EXPECT_EQ(c.positional.denominator, PeDenominator::kHalfMinusOne);
  c = Parse(R"({"preset": "opennmt-tf", "offset": 0, "denominator": "d_model"})");
  EXPECT_EQ(c.positional.offset, 0);
  EXPECT_EQ(c.positional.denominator, PeDenominator::kDModel);
  EXPECT_EQ(c.positional.layout, PeLayout::kSplit);
  // fairseq without pad_token_id is fine once the offset is explicit.
  c = Parse(R"({"preset": "fairseq", "offset": 2})");
  EXPECT_EQ(c.positional.offset, 2);
  // Other keys (base, max_len, mode) are the preset's business only if given.
  c = Parse(R"({"preset": "vaswani", "base": 500, "mode": "cached", "max_len": 64})");
  EXPECT_EQ(c.positional.base, 500.0);
  EXPECT_EQ(c.positional.mode, PeMode::kCached);
  EXPECT_EQ(c.positional.max_len, 64);
}

TEST(PresetsTest, RoundTripKeepsTheResolvedValues) {
  const ModelConfig c = Parse(R"({"preset": "fairseq"})", "3");
  const std::string text = ConfigToJson(c);
  EXPECT_NE(text.find("\"preset\": \"fairseq\""), std::string::npos) << text;
  const ModelConfig back = ParseConfig(text, "round trip");
  EXPECT_EQ(back.positional.offset, 4);
  EXPECT_EQ(back.positional.preset, "fairseq");
  EXPECT_EQ(ConfigToJson(back), text);
}

TEST(PresetsTest, BadPresetsAreErrorsNamingTheKey) {
  const auto message = [](const std::string& positional, const std::string& pad = "null") {
    try {
      Parse(positional, pad);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(R"({"preset": "Whisper"})"),
            "config.json: key 'positional.preset': unknown value 'Whisper', expected one of "
            "vaswani, tensor2tensor, whisper, fairseq, opennmt-tf, marian-hf");
  EXPECT_NE(message(R"({"preset": "fairseq"})").find("pad_token_id"), std::string::npos);
  EXPECT_NE(message(R"({"kind": "learned", "preset": "vaswani"})").find("'positional.preset'"),
            std::string::npos);
  EXPECT_NE(message(R"({"kind": "none", "preset": "vaswani"})").find("'positional.preset'"),
            std::string::npos);
}

}  // namespace
}  // namespace phasor

// The bodies of the libFuzzer targets, shared with the regression test
// (regressions_test.cc) so that a saved finding replays through exactly the
// code that found it.
//
// Each Fuzz* function takes arbitrary bytes. Any input must either succeed or
// throw phasor::Error (caught here); a broken invariant throws
// InvariantViolation, which libFuzzer reports as a crash (uncaught exception)
// and the regression test as a failure. Sanitizers report the rest. Each
// returns what became of the input, which the regression test compares with
// the outcome recorded when the input was saved (outcomes.txt).
#pragma once

#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/memory_limit.h"
#include "engine/safetensors.h"
#include "models/config.h"
#include "models/encoder.h"
#include "models/tokens.h"
#include "tests/fuzz/model_input.h"

namespace phasor::fuzz {

struct InvariantViolation : std::logic_error {
  using std::logic_error::logic_error;
};

inline void Expect(bool ok, const char* what) {
  if (!ok) throw InvariantViolation(what);
}

// What became of one input: refused with a message, accepted, or (model) run.
struct Outcome {
  enum class Kind { kRefused, kAccepted, kRanFinite, kRanNonFinite };
  Kind kind = Kind::kAccepted;
  std::string message;  // kRefused: the Error's message

  static Outcome Refused(const Error& e) { return {Kind::kRefused, e.what()}; }
};

inline const char* ToString(Outcome::Kind k) {
  switch (k) {
    case Outcome::Kind::kRefused:
      return "refused";
    case Outcome::Kind::kAccepted:
      return "accepted";
    case Outcome::Kind::kRanFinite:
      return "ran-finite";
    case Outcome::Kind::kRanNonFinite:
      return "ran-non-finite";
  }
  return "?";
}

// Well under libFuzzer's -rss_limit_mb / -malloc_limit_mb (2 GiB): a request
// the cap refuses is an Error, so an allocation the cap does not cover shows up
// as an out-of-memory finding. The targets set it; the regression test too.
inline constexpr uint64_t kFuzzMemoryLimit = uint64_t{256} << 20;

// A directory only this process uses, made fresh (mkdtemp: nothing left by an
// earlier process of the same id is found in it), in /dev/shm when it exists
// (no disk I/O), removed at exit. PHASOR_FUZZ_TMP overrides the parent directory.
inline const std::string& ScratchDir() {
  // Never freed: the atexit handler may run after static destructors.
  static const std::string& dir = *new std::string([] {
    const char* base = std::getenv("PHASOR_FUZZ_TMP");
    const std::string root =
        base ? base : (std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp");
    std::string d = root + "/phasor_fuzz_XXXXXX";
    if (mkdtemp(d.data()) == nullptr) {
      std::perror(("cannot make a directory " + d).c_str());
      std::abort();
    }
    std::filesystem::create_directories(d + "/model");
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(ScratchDir(), ec);
    });
    return d;
  }());
  return dir;
}

inline void WriteFile(const std::string& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
}

// The safetensors reader: a loaded file holds what its shapes say, and
// save + load gives the same tensors, bit for bit.
inline Outcome FuzzSafetensors(const uint8_t* data, size_t size) {
  const std::string path = ScratchDir() + "/in.safetensors";
  WriteFile(path, data, size);
  Weights weights;
  try {
    weights = LoadSafetensors(path);
  } catch (const Error& e) {
    return Outcome::Refused(e);
  }
  for (const std::string& name : weights.Names()) {
    const Tensor& t = weights.Get(name);
    // A BF16 tensor is kept in bfloat16, any other in float32.
    const size_t held = t.data.empty() ? t.bf16.size() : t.data.size();
    Expect(static_cast<int64_t>(held) == NumElements(t.shape), "size matches shape");
  }
  const std::string copy = ScratchDir() + "/copy.safetensors";
  try {
    SaveSafetensors(copy, weights);
  } catch (const Error&) {
    return {};  // a name that is not valid UTF-8 cannot be saved
  }
  const Weights again = LoadSafetensors(copy);
  Expect(again.Names() == weights.Names(), "round trip keeps the names");
  for (const std::string& name : weights.Names()) {
    // Saved as float32: the values, made from bfloat16 where need be, again.
    const Tensor& a = weights.Get(name);
    const Tensor& b = again.Get(name);
    const size_t n = static_cast<size_t>(NumElements(a.shape));
    Expect(a.shape == b.shape && b.data.size() == n &&
               (n == 0 ||
                std::memcmp(weights.Floats(name), again.Floats(name), n * sizeof(float)) == 0),
           "round trip keeps the tensors");
  }
  return {};
}

// config.json text: a parsed config prints and parses back to the same text.
inline Outcome FuzzConfig(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ModelConfig config;
  try {
    config = ParseConfig(text, "config.json");
  } catch (const Error& e) {
    return Outcome::Refused(e);
  }
  const std::string json = ConfigToJson(config);
  const ModelConfig again = ParseConfig(json, "round trip");
  Expect(ConfigToJson(again) == json, "config round trip");
  return {};
}

// Token lines. Byte 0 is skipped (it chose a pad id when ragged lines needed
// one; the saved inputs keep it).
inline Outcome FuzzTokens(const uint8_t* data, size_t size) {
  if (size == 0) return {};
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  TokenBatch b;
  try {
    b = ParseTokens(text, "tokens.txt");
  } catch (const Error& e) {
    return Outcome::Refused(e);
  }
  Expect(b.batch >= 1 && b.seq >= 1 && static_cast<int64_t>(b.lengths.size()) == b.batch &&
             static_cast<int64_t>(b.offsets.size()) == b.batch + 1 && b.offsets[0] == 0 &&
             b.offsets[b.batch] == static_cast<int64_t>(b.ids.size()),
         "batch shape");
  for (int64_t i = 0; i < b.batch; ++i) {
    const int64_t n = b.lengths[static_cast<size_t>(i)];
    Expect(n >= 1 && n <= b.seq, "line length");
    Expect(b.offsets[i + 1] - b.offsets[i] == n, "line offsets");
  }
  // The same text read as pairs (a model with token types): the same ids, or
  // a refused second tab; types 0 then 1 along each line.
  TokenBatch p;
  try {
    p = ParseTokens(text, "tokens.txt", true);
  } catch (const Error& e) {
    Expect(std::string(e.what()).find("holds a second tab") != std::string::npos, "pairs refusal");
    return {};
  }
  Expect(p.ids == b.ids && p.offsets == b.offsets, "pairs ids");
  Expect(p.types.empty() || p.types.size() == p.ids.size(), "pairs types size");
  for (int64_t i = 0; i < p.batch && !p.types.empty(); ++i) {
    for (int64_t j = p.offsets[i]; j < p.offsets[i + 1]; ++j) {
      const int32_t t = p.types[static_cast<size_t>(j)];
      Expect(t == 0 || t == 1, "pairs type value");
      Expect(j == p.offsets[i] || t >= p.types[static_cast<size_t>(j - 1)], "pairs type order");
    }
  }
  return {};
}

// A model directory end to end (layout in model_input.h): load, then encode
// two sequences (the second one ragged) of mostly valid ids. Outputs may be
// NaN (non-finite weights are allowed): the outcome says whether they are.
inline Outcome FuzzModel(const uint8_t* data, size_t size) {
  const std::string dir = ScratchDir() + "/model";
  const ModelInput in = SplitModelInput(data, size);
  WriteFile(dir + "/config.json", in.config.data(), in.config.size());
  WriteFile(dir + "/model.safetensors", in.safetensors.data(), in.safetensors.size());
  std::unique_ptr<Encoder> enc;
  try {
    enc = Encoder::Load(dir, in.mode);
  } catch (const Error& e) {
    return Outcome::Refused(e);
  }
  const ModelConfig& c = enc->config();
  const int64_t batch = 2;
  const int64_t seq = in.seq;
  std::vector<int32_t> ids(static_cast<size_t>(batch * seq));
  // Seed bytes >= 0xf0 give ids around vocab_size, some out of range.
  for (size_t i = 0; i < ids.size(); ++i) {
    const int64_t raw = in.token_seed[i % in.token_seed.size()];
    ids[i] = static_cast<int32_t>(raw < 0xf0 ? raw % c.vocab_size : c.vocab_size + raw - 0xf8);
  }
  const std::vector<int64_t> lengths = {seq, std::max<int64_t>(1, seq / 2)};
  std::vector<float> out(static_cast<size_t>(batch * seq * c.d_model));  // [batch·seq, d_model]
  try {
    EncoderWorkspace ws = enc->MakeWorkspace(batch * seq);
    enc->Forward({ids.data(), batch, seq, lengths.data()}, EncoderStage::kFinal, out.data(), ws);
  } catch (const Error& e) {
    return Outcome::Refused(e);  // an id outside the vocabulary, a position past a cached table
  }
  const bool finite = std::all_of(out.begin(), out.end(), [](float v) { return std::isfinite(v); });
  return {finite ? Outcome::Kind::kRanFinite : Outcome::Kind::kRanNonFinite, ""};
}

}  // namespace phasor::fuzz

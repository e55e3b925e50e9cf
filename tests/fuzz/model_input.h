// How model_fuzz splits one fuzz input into a model directory, shared with the
// seed corpus generator (make_corpus.cc) and the regression tests.
//
// Layout: byte 0: PE mode override (0: the config's, 1: cached, 2: on_the_fly,
// 3: auto; other values wrap); byte 1: sequence length - 1 (mod 32); bytes 2-3:
// the config's length n (u16, little-endian); then n bytes of config.json (cut
// short if the input is); the rest is model.safetensors. Token ids are taken
// from the last bytes of the input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layers/positional.h"

namespace phasor::fuzz {

struct ModelInput {
  std::optional<PeMode> mode;
  int64_t seq = 1;
  std::string config;
  std::string safetensors;
  std::vector<uint8_t> token_seed;  // never empty
};

inline ModelInput SplitModelInput(const uint8_t* data, size_t size) {
  ModelInput in;
  auto byte = [&](size_t i) -> uint8_t { return i < size ? data[i] : 0; };
  switch (byte(0) % 4) {
    case 1:
      in.mode = PeMode::kCached;
      break;
    case 2:
      in.mode = PeMode::kOnTheFly;
      break;
    case 3:
      in.mode = PeMode::kAuto;
      break;
    default:
      break;
  }
  in.seq = 1 + byte(1) % 32;
  const size_t n = static_cast<size_t>(byte(2)) | (static_cast<size_t>(byte(3)) << 8);
  const size_t begin = std::min<size_t>(4, size);
  const size_t mid = std::min(size, begin + n);
  in.config.assign(reinterpret_cast<const char*>(data) + begin, mid - begin);
  in.safetensors.assign(reinterpret_cast<const char*>(data) + mid, size - mid);
  const size_t tail = std::min<size_t>(size, 16);
  in.token_seed.assign(data + size - tail, data + size);
  if (in.token_seed.empty()) in.token_seed.push_back(0);
  return in;
}

// The inverse, for the seed corpus and tests.
inline std::string JoinModelInput(uint8_t mode, uint8_t seq_minus_one, const std::string& config,
                                  const std::string& safetensors) {
  std::string out;
  out += static_cast<char>(mode);
  out += static_cast<char>(seq_minus_one);
  out += static_cast<char>(config.size() & 0xff);
  out += static_cast<char>((config.size() >> 8) & 0xff);
  return out + config + safetensors;
}

}  // namespace phasor::fuzz

// A model directory of a test's own: a config (the toy model's, sizes set by
// the test) and the toy weights of that shape, in a fresh temporary
// directory removed with the object.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "engine/output_file.h"
#include "engine/safetensors.h"
#include "models/config.h"
#include "models/toy.h"
#include "tests/support/write_file.h"

namespace phasor::testing {

class ToyDir {
 public:
  // name: a word for the directory's name ("cancel" -> phasor_cancel_XXXXXX).
  ToyDir(const ModelConfig& config, const std::string& name) {
    std::string pattern = ::testing::TempDir() + "phasor_" + name + "_XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern);
    path_ = pattern;
    testing::WriteFileAtomically(path_ + "/config.json", ConfigToJson(config));
    SaveSafetensors(path_ + "/model.safetensors", ToyWeights(config));
  }
  ~ToyDir() { std::filesystem::remove_all(path_); }
  ToyDir(const ToyDir&) = delete;
  ToyDir& operator=(const ToyDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The toy config at a small size: vocab, d_model, 2 heads, n_layers, d_ff 2·d_model.
inline ModelConfig SmallToyConfig(int64_t vocab, int64_t d_model, int64_t n_layers) {
  ModelConfig c = ToyConfig();
  c.vocab_size = vocab;
  c.d_model = d_model;
  c.n_heads = 2;
  c.n_layers = n_layers;
  c.d_ff = 2 * d_model;
  return c;
}

}  // namespace phasor::testing

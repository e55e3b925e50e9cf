// The rotary architectures' checkpoints as they are stored on the Hub: F16
// tensors in shards under model.safetensors.index.json, and the F32 golden
// folders' own prefixes. Each case's weights rounded to float16 are written
// twice, as F32 in one file and as F16 in three shards; both folders must
// load and give the same bits, so the F16 and sharded paths add nothing to
// what the golden cases (F32, BF16) check against the float64 reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/output_file.h"
#include "engine/safetensors.h"
#include "models/phasor.h"
#include "models/tokens.h"
#include "tests/support/hf_copy.h"

namespace phasor {
namespace {

namespace fs = std::filesystem;

// The float16 bits of x (round to nearest even) and their value as float.
uint16_t HalfBits(float x) {
  const _Float16 h = static_cast<_Float16>(x);
  uint16_t bits = 0;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}
float HalfValue(float x) { return static_cast<float>(static_cast<_Float16>(x)); }

// One safetensors file of F16 tensors (names in the order given), as the
// format's reference writer lays it out: an 8-byte header length, the JSON
// header padded with spaces to a multiple of 8, then the data.
void WriteF16File(const std::string& path, const Weights& w, const std::vector<std::string>& names,
                  int64_t& bytes) {
  nlohmann::json header = nlohmann::json::object();
  std::string data;
  for (const std::string& name : names) {
    const Tensor& t = w.Get(name);
    const size_t begin = data.size();
    const float* v = w.Floats(name);
    for (int64_t i = 0; i < NumElements(t.shape); ++i) {
      const uint16_t b = HalfBits(v[i]);
      data.append(reinterpret_cast<const char*>(&b), sizeof b);
    }
    header[name] = {{"dtype", "F16"}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  const uint64_t n = text.size();
  OutputFile out(path);
  out.Write(reinterpret_cast<const char*>(&n), sizeof n);
  out.Write(text.data(), text.size());
  out.Write(data.data(), data.size());
  out.Commit();
  bytes += static_cast<int64_t>(data.size());
}

class RotaryStorageTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RotaryStorageTest, F16ShardsGiveTheBitsOfTheSameValuesInF32) {
  const std::string src = testing::HfDir(GetParam());
  const std::string f32 = ::testing::TempDir() + GetParam() + "_f16_values";
  const std::string f16 = ::testing::TempDir() + GetParam() + "_f16_shards";
  for (const std::string& dir : {f32, f16}) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(src + "/config.json", dir + "/config.json");
  }
  const Weights w = LoadSafetensors(src + "/model.safetensors");
  Weights rounded("rounded");
  const std::vector<std::string> names = w.Names();
  for (const std::string& name : names) {
    const float* from = w.Floats(name);
    std::vector<float> v(from, from + NumElements(w.Get(name).shape));
    for (float& x : v) x = HalfValue(x);
    rounded.Add(name, w.Get(name).shape, std::move(v));
  }
  SaveSafetensors(f32 + "/model.safetensors", rounded);
  // Three shards: every third name, as save_pretrained splits by size.
  nlohmann::json map = nlohmann::json::object();
  int64_t total = 0;
  for (int k = 0; k < 3; ++k) {
    const std::string file = "model-0000" + std::to_string(k + 1) + "-of-00003.safetensors";
    std::vector<std::string> part;
    for (size_t i = static_cast<size_t>(k); i < names.size(); i += 3) part.push_back(names[i]);
    for (const std::string& name : part) map[name] = file;
    WriteF16File(f16 + "/" + file, rounded, part, total);
  }
  const nlohmann::json index = {{"metadata", {{"total_size", total}}}, {"weight_map", map}};
  OutputFile out(f16 + "/model.safetensors.index.json");
  const std::string text = index.dump(2);
  out.Write(text.data(), text.size());
  out.Commit();

  const TokenBatch tb = LoadTokens(src + "/tokens.txt");
  std::vector<std::vector<float>> got;
  for (const std::string& dir : {f32, f16}) {
    const Model model = Model::Load(dir);
    got.emplace_back(static_cast<size_t>(tb.offsets.back() * model.d_model()));
    model.EncodePacked(tb.ids.data(), tb.offsets.data(), tb.batch, got.back().data(),
                       EncodeOptions{});
  }
  EXPECT_EQ(got[0], got[1]);
  // The rounding changed the model: the F32 golden's own weights give other bits.
  const Model golden = Model::Load(src);
  std::vector<float> exact(got[0].size());
  golden.EncodePacked(tb.ids.data(), tb.offsets.data(), tb.batch, exact.data(), EncodeOptions{});
  EXPECT_NE(exact, got[0]);
  fs::remove_all(f32);
  fs::remove_all(f16);
}

INSTANTIATE_TEST_SUITE_P(EveryRotaryArchitecture, RotaryStorageTest,
                         ::testing::Values("nomic_bert", "new_gte", "modernbert", "mpnet", "qwen3",
                                           "qwen2", "llama", "mistral", "gemma3_text"));

}  // namespace
}  // namespace phasor

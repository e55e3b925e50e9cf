#include "models/architectures/architecture.h"

#include <algorithm>
#include <filesystem>

#include "engine/error.h"
#include "engine/safetensors.h"
#include "models/architectures/checkpoint_config.h"

namespace phasor {

std::string ModelTypeOf(const std::string& config_text, const std::string& source) {
  return CheckpointConfig(config_text, source).String("model_type", "");
}

const Architecture& FindArchitecture(const std::string& model_type, const std::string& source) {
  std::string supported;
  for (const Architecture& a : Architectures()) {
    for (const std::string& t : a.model_types) {
      if (t == model_type) return a;
      supported += (supported.empty() ? "" : ", ") + t;
    }
  }
  throw Error(source + ": key 'model_type': '" + model_type +
              "' is not an architecture phasor reads; it reads " + supported);
}

Weights LoadCheckpointWeights(const std::string& dir) {
  std::error_code ec;
  const std::string single = dir + "/model.safetensors";
  if (std::filesystem::exists(single, ec)) return LoadSafetensors(single);
  if (std::filesystem::exists(dir + "/pytorch_model.bin", ec)) {
    throw Error(dir +
                " holds pytorch_model.bin (a pickle) and no model.safetensors: phasor reads "
                "safetensors only; convert it with tools/convert_bin_to_safetensors.py");
  }
  throw Error("model directory " + dir + " has no model.safetensors");
}

}  // namespace phasor

// Placeholder until the normalizers land.
#include <nlohmann/json.hpp>

#include "engine/error.h"
#include "models/tokenizers/normalizer.h"

namespace phasor::tokenizers {
std::unique_ptr<Normalizer> MakeNormalizer(const nlohmann::json& spec, const std::string& where) {
  if (spec.is_null()) return nullptr;
  throw Error(where + ": not implemented");
}
}  // namespace phasor::tokenizers

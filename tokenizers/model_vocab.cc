#include "tokenizers/model_vocab.h"

#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

#include "engine/error.h"

namespace phasor::tokenizers {

bool TokenTable::Insert(std::string_view token, int32_t id) {
  if (map_.count(token) != 0) return false;
  storage_.emplace_back(token);
  map_.emplace(storage_.back(), id);
  if (static_cast<size_t>(id) >= by_id_.size()) by_id_.resize(static_cast<size_t>(id) + 1);
  by_id_[static_cast<size_t>(id)] = storage_.back();
  if (id >= id_bound_) id_bound_ = id + 1;
  return true;
}

std::string Quoted(std::string_view token) {
  return nlohmann::json(std::string(token))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

TokenTable ReadTokenIds(const nlohmann::json& vocab, const std::string& where) {
  if (!vocab.is_object()) throw Error(where + ": expected an object {token: id}");
  if (vocab.empty()) throw Error(where + ": the vocabulary is empty");
  constexpr int64_t kMaxId = std::numeric_limits<int32_t>::max() - 1;
  TokenTable table;
  table.Reserve(vocab.size());
  // The token of each id seen so far, to name both tokens of a shared id:
  // by index while ids stay below a bound proportional to the count (every
  // real vocabulary), in a map past it.
  const size_t dense = 4 * vocab.size() + 1024;
  std::vector<const std::string*> owner_by_id(dense, nullptr);
  std::unordered_map<int32_t, const std::string*> owner;
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    const nlohmann::json& id = it.value();
    if (!id.is_number_integer() ||
        (id.is_number_integer() && !id.is_number_unsigned() && id.get<int64_t>() < 0)) {
      throw Error(where + "[" + Quoted(it.key()) + "]: expected an id (an integer >= 0), got " +
                  id.dump());
    }
    if (id.is_number_unsigned() ? id.get<uint64_t>() > uint64_t(kMaxId)
                                : id.get<int64_t>() > kMaxId) {
      throw Error(where + "[" + Quoted(it.key()) + "]: id " + id.dump() +
                  " is out of range (ids are below 2^31 - 1)");
    }
    const auto value = static_cast<int32_t>(id.get<int64_t>());
    const std::string* other = nullptr;
    if (static_cast<size_t>(value) < dense) {
      const std::string*& slot = owner_by_id[static_cast<size_t>(value)];
      if (slot == nullptr)
        slot = &it.key();
      else
        other = slot;
    } else {
      const auto [slot, fresh] = owner.emplace(value, &it.key());
      if (!fresh) other = slot->second;
    }
    if (other != nullptr) {
      throw Error(where + "[" + Quoted(it.key()) + "]: id " + std::to_string(value) +
                  " is also the id of " + Quoted(*other));
    }
    table.Insert(it.key(), value);
  }
  return table;
}

std::string BytePiece(unsigned char b) {
  char text[8];
  std::snprintf(text, sizeof text, "<0x%02X>", b);
  return text;
}

}  // namespace phasor::tokenizers

#include "tokenizers/model_vocab.h"

#include <cstdio>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/error.h"
#include "tokenizers/json_reader.h"

namespace phasor::tokenizers {
namespace {

// An id as the file writes it, checked: an integer in [0, 2^31 - 1).
int32_t IdOf(simdjson::dom::element value, std::string_view token, const std::string& where) {
  constexpr int64_t kMaxId = std::numeric_limits<int32_t>::max() - 1;
  auto at = [&] { return where + "[" + Quoted(token) + "]: "; };
  int64_t id = 0;
  switch (value.type()) {
    case simdjson::dom::element_type::INT64:
      id = value.get_int64().value_unsafe();
      if (id < 0) break;
      if (id > kMaxId)
        throw Error(at() + "id " + std::to_string(id) +
                    " is out of range (ids are below 2^31 - 1)");
      return static_cast<int32_t>(id);
    case simdjson::dom::element_type::UINT64:
      throw Error(at() + "id " + std::to_string(value.get_uint64().value_unsafe()) +
                  " is out of range (ids are below 2^31 - 1)");
    default:
      break;
  }
  throw Error(at() + "expected an id (an integer >= 0), got " + ToJson(value, "").dump());
}

}  // namespace

void TokenTable::Reserve(size_t n, size_t bytes) {
  size_t capacity = 16;
  while (capacity < 2 * n) capacity *= 2;
  if (capacity > slots_.size()) Rehash(capacity);
  // Ids 0 to n - 1 (every real vocabulary's) without growing one at a time.
  if (by_id_.size() < n) by_id_.resize(n);
  text_.reserve(bytes);
}

size_t TokenTable::Probe(std::string_view token, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  const auto tag = static_cast<uint32_t>(hash >> 32);
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.id < 0) return i;
    if (slot.hash == tag && slot.size == token.size() &&
        SameBytes(text_.data() + slot.offset, token.data(), token.size()))
      return i;
  }
}

std::optional<int32_t> TokenTable::Find(std::string_view a, std::string_view b) const {
  char joined[128];
  if (a.size() + b.size() > sizeof joined) return Find(std::string(a) + std::string(b));
  if (!a.empty()) std::memcpy(joined, a.data(), a.size());
  if (!b.empty()) std::memcpy(joined + a.size(), b.data(), b.size());
  return Find(std::string_view(joined, a.size() + b.size()));
}

void TokenTable::Rehash(size_t capacity) {
  std::vector<Slot, AlignedAllocator<Slot>> old(capacity, Slot{0, 0, 0, -1});
  old.swap(slots_);
  for (const Slot& slot : old) {
    if (slot.id < 0) continue;
    const std::string_view token(text_.data() + slot.offset, slot.size);
    slots_[Probe(token, Hash(token))] = slot;
  }
}

bool TokenTable::Insert(std::string_view token, int32_t id) {
  if (2 * (size_ + 1) > slots_.size()) Rehash(std::max<size_t>(16, 2 * slots_.size()));
  const uint64_t hash = Hash(token);
  Slot& slot = slots_[Probe(token, hash)];
  if (slot.id >= 0) return false;
  if (text_.size() + token.size() >= kNone) throw Error("token table: more than 4 GiB of tokens");
  slot = Slot{static_cast<uint32_t>(hash >> 32), static_cast<uint32_t>(token.size()),
              static_cast<uint32_t>(text_.size()), id};
  text_.append(token);
  if (static_cast<size_t>(id) >= by_id_.size()) by_id_.resize(static_cast<size_t>(id) + 1);
  by_id_[static_cast<size_t>(id)] = Place{slot.offset, slot.size};
  if (id >= id_bound_) id_bound_ = id + 1;
  ++size_;
  return true;
}

std::string Quoted(std::string_view token) {
  return nlohmann::json(std::string(token))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

TokenTable ReadTokenIds(simdjson::dom::element vocab, const std::string& where) {
  simdjson::dom::object object;
  if (vocab.get(object) != simdjson::SUCCESS)
    throw Error(where + ": expected an object {token: id}");
  const size_t n = object.size();
  if (n == 0) throw Error(where + ": the vocabulary is empty");
  TokenTable table;
  table.Reserve(n, 8 * n);
  for (const auto field : object) {
    const int32_t id = IdOf(field.value, field.key, where);
    // A token listed twice is named as such, before the id it repeats.
    const bool shared = table.HasId(id);
    if (!shared && table.Insert(field.key, id)) continue;
    if (!shared || table.Find(field.key)) {
      throw Error(where + "[" + Quoted(field.key) + "]: the token appears twice, expected once");
    }
    throw Error(where + "[" + Quoted(field.key) + "]: id " + std::to_string(id) +
                " is also the id of " + Quoted(table.TokenOf(id)));
  }
  return table;
}

std::string BytePiece(unsigned char b) {
  char text[8];
  std::snprintf(text, sizeof text, "<0x%02X>", b);
  return text;
}

}  // namespace phasor::tokenizers

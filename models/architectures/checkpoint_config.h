// Reading a checkpoint's own config.json (Hugging Face's keys): each value
// checked for type and range, every message naming the file, key and value.
// Keys a reader does not ask for are left alone (such files hold many that do
// not change the model's arithmetic: dropout, initializer_range, ...).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace phasor {

class CheckpointConfig {
 public:
  // Throws Error naming source for text that is not a JSON object.
  CheckpointConfig(const std::string& text, std::string source);
  ~CheckpointConfig();

  const std::string& source() const { return source_; }
  bool Has(const std::string& key) const;      // present and not null
  bool Present(const std::string& key) const;  // present, null or not
  // An integer in [lo, hi]; fallback when absent (none: the key is required).
  int64_t Int(const std::string& key, int64_t lo, int64_t hi,
              std::optional<int64_t> fallback = std::nullopt) const;
  double Number(const std::string& key, double fallback) const;  // finite
  std::string String(const std::string& key, const std::string& fallback) const;
  bool Bool(const std::string& key, bool fallback) const;
  // An object of strings (a sharded checkpoint's weight_map); Error if the key
  // is missing or anything else.
  std::map<std::string, std::string> StringMap(const std::string& key) const;
  // An array of strings (a checkpoint's "architectures"); empty if the key is
  // absent or null, Error if it is anything else.
  std::vector<std::string> StringList(const std::string& key) const;
  // Error unless the key is absent, null or one of allowed: "config.json: key
  // 'position_embedding_type': 'relative_key' is not supported, expected
  // 'absolute'".
  void Expect(const std::string& key, const std::vector<std::string>& allowed) const;
  [[noreturn]] void Fail(const std::string& key, const std::string& what) const;
  // The object under key (transformers 5's "rope_parameters"), read the same
  // way, its messages naming "key.inner"; Error if it is not an object.
  CheckpointConfig Child(const std::string& key) const;
  CheckpointConfig(CheckpointConfig&&) noexcept;

 private:
  struct Json;
  struct ChildTag {};
  CheckpointConfig(ChildTag, std::string source, std::string prefix);
  std::string source_;
  std::string prefix_;  // "" or "key." of a Child
  std::unique_ptr<Json> root_;
};

}  // namespace phasor

// A tokenizer file's bytes: mapped read-only (no copy, its pages mapped at
// once) with zeroed bytes after them, the padding simdjson reads past the
// end of a text; or copied into a string for the line formats. Internal to
// phasor_tokenizers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace phasor::tokenizers {

// Every function here throws Error naming the file for one that is missing,
// not a regular file, unreadable, or larger than a tokenizer file (1 GiB).

class FileText {
 public:
  explicit FileText(const std::string& path);
  ~FileText();
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;

  // The file's bytes, followed by at least kPadding readable zero bytes.
  std::string_view text() const { return {static_cast<const char*>(base_), size_}; }
  static constexpr size_t kPadding = 64;  // simdjson::SIMDJSON_PADDING

 private:
  void* base_ = nullptr;
  size_t mapped_ = 0;  // bytes of the mapping: size_ + padding, whole pages
  size_t size_ = 0;
};

// The file's bytes in a string (vocab.txt, merges.txt).
std::string ReadFileText(const std::string& path);

}  // namespace phasor::tokenizers

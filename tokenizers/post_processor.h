// Post-processors: the special tokens and token types put around a text or a
// pair once the model has its ids (tokenizer.json "post_processor"), as the
// Hugging Face tokenizers library's TemplateProcessing, BertProcessing,
// RobertaProcessing, ByteLevel (no change to ids) and Sequence do.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace phasor::tokenizers {

struct Encoding;    // tokenizer.h
struct TextTokens;  // token_offsets.h

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  // The ids this adds to a single text or to a pair.
  virtual int64_t AddedCount(bool pair) const = 0;
  // Lays out a (and b, if pair) into out (ids, types, pair_start, and with
  // offsets their spans and the special mask), with the special tokens when
  // add_special. Without them the library still gives a template's token
  // types, but BertProcessing's and RobertaProcessing's plain concatenation
  // (b of type 1). A special token's span is (0, 0).
  virtual void Process(const TextTokens& a, const TextTokens* b, bool add_special,
                       Encoding& out) const = 0;
  // Whether the spans are trimmed of their tokens' spaces first
  // (token_offsets.h TrimOffsets), and with which add_prefix_space.
  bool trim_offsets() const { return trim_offsets_; }
  bool add_prefix_space() const { return add_prefix_space_; }
  void SetTrim(bool trim, bool add_prefix_space) {
    trim_offsets_ = trim;
    add_prefix_space_ = add_prefix_space;
  }
  // False for ByteLevel, which lays out nothing (a Sequence keeps one that does).
  virtual bool lays_out() const { return true; }

 private:
  bool trim_offsets_ = false, add_prefix_space_ = false;
};

// Without special tokens (or with no post-processor): a then b, b's ids of
// type 1, as the library lays them out.
void ConcatenateWithoutSpecialTokens(const TextTokens& a, const TextTokens* b, Encoding& out);

// The post-processor a tokenizer.json "post_processor" value describes;
// nullptr for null. Errors name where and the field.
std::unique_ptr<PostProcessor> MakePostProcessor(const nlohmann::json& spec,
                                                 const std::string& where);

}  // namespace phasor::tokenizers

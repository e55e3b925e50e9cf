#include "tokenizers/post_processor.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "engine/error.h"
#include "tokenizers/encoding.h"
#include "tokenizers/fields.h"
#include "tokenizers/kinds.h"
#include "tokenizers/token_offsets.h"

namespace phasor::tokenizers {
namespace {

using nlohmann::json;

void ClearEncoding(Encoding& out) {
  out.ids.clear();
  out.types.clear();
  out.offsets.clear();
  out.special.clear();
  out.pair_start = -1;
}

// The offsets of n ids: text's spans, or (0, 0) for special tokens (text null).
void AppendOffsets(const TextTokens* text, size_t n, Encoding& out) {
  if (text) {
    for (const Span& s : text->spans)
      out.offsets.emplace_back(static_cast<int64_t>(s.first), static_cast<int64_t>(s.second));
  } else {
    out.offsets.insert(out.offsets.end(), n, {0, 0});
  }
  out.special.insert(out.special.end(), n, text ? 0 : 1);
}

// A piece of a layout: special ids, or one of the texts (0: a, 1: b).
struct LayoutItem {
  std::vector<int32_t> ids;  // the special token's ids, when text < 0
  int text = -1;
  int32_t type = 0;
};

// Lays out items: what TemplateProcessing, BertProcessing and
// RobertaProcessing all are.
class Layout : public PostProcessor {
 public:
  // template_types: without special tokens the texts keep the layout's
  // types (TemplateProcessing), else they are simply concatenated.
  Layout(std::vector<LayoutItem> single, std::vector<LayoutItem> pair, bool template_types)
      : single_(std::move(single)), pair_(std::move(pair)), template_types_(template_types) {}

  int64_t AddedCount(bool pair) const override {
    int64_t n = 0;
    for (const auto& item : pair ? pair_ : single_)
      if (item.text < 0) n += static_cast<int64_t>(item.ids.size());
    return n;
  }

  void Process(const TextTokens& a, const TextTokens* b, bool add_special,
               Encoding& out) const override {
    if (!add_special && !template_types_) {
      ConcatenateWithoutSpecialTokens(a, b, out);
      return;
    }
    ClearEncoding(out);
    int64_t b_start = -1;
    for (const auto& item : b ? pair_ : single_) {
      if (item.text < 0 && !add_special) continue;
      const std::vector<int32_t>* ids = &item.ids;
      const TextTokens* text = item.text == 0 ? &a : item.text == 1 ? b : nullptr;
      if (text) ids = &text->ids;
      if (item.text == 1) b_start = static_cast<int64_t>(out.ids.size());
      if (item.type == 1 && out.pair_start < 0 && !ids->empty())
        out.pair_start = static_cast<int64_t>(out.ids.size());
      out.ids.insert(out.ids.end(), ids->begin(), ids->end());
      out.types.insert(out.types.end(), ids->size(), item.type);
      if (a.with_offsets) AppendOffsets(text, ids->size(), out);
    }
    if (b && out.pair_start < 0) out.pair_start = b_start;
  }

 private:
  std::vector<LayoutItem> single_, pair_;
  bool template_types_;
};

// ByteLevel: no special tokens, only the trimming of offsets.
class ByteLevelPost final : public PostProcessor {
 public:
  int64_t AddedCount(bool) const override { return 0; }
  void Process(const TextTokens& a, const TextTokens* b, bool, Encoding& out) const override {
    ConcatenateWithoutSpecialTokens(a, b, out);
  }
  bool lays_out() const override { return false; }
};

std::unique_ptr<PostProcessor> MakeByteLevel(const json& spec, const std::string& where) {
  auto p = std::make_unique<ByteLevelPost>();
  p->SetTrim(BoolField(spec, "trim_offsets", where, true),
             BoolField(spec, "add_prefix_space", where, true));
  return p;
}

// BertProcessing and RobertaProcessing name a token as [content, id].
std::vector<int32_t> NamedId(const json& spec, const char* key, const std::string& where) {
  const json& v = Required(spec, key, where);
  if (!v.is_array() || v.size() != 2 || !v[0].is_string() || !v[1].is_number_integer())
    throw Error(where + "." + key + ": expected [token, id]");
  return {v[1].get<int32_t>()};
}

std::unique_ptr<PostProcessor> MakeBert(const json& spec, const std::string& where) {
  const auto cls = NamedId(spec, "cls", where), sep = NamedId(spec, "sep", where);
  return std::make_unique<Layout>(
      std::vector<LayoutItem>{{cls, -1, 0}, {{}, 0, 0}, {sep, -1, 0}},
      std::vector<LayoutItem>{{cls, -1, 0}, {{}, 0, 0}, {sep, -1, 0}, {{}, 1, 1}, {sep, -1, 1}},
      false);
}

// RoBERTa gives every id of a pair type 0: <s> A </s> </s> B </s>.
std::unique_ptr<PostProcessor> MakeRoberta(const json& spec, const std::string& where) {
  const auto cls = NamedId(spec, "cls", where), sep = NamedId(spec, "sep", where);
  auto p = std::make_unique<Layout>(
      std::vector<LayoutItem>{{cls, -1, 0}, {{}, 0, 0}, {sep, -1, 0}},
      std::vector<LayoutItem>{
          {cls, -1, 0}, {{}, 0, 0}, {sep, -1, 0}, {sep, -1, 0}, {{}, 1, 0}, {sep, -1, 0}},
      false);
  p->SetTrim(BoolField(spec, "trim_offsets", where, true),
             BoolField(spec, "add_prefix_space", where, true));
  return p;
}

std::vector<LayoutItem> Template(const json& items, const json& special, const std::string& where,
                                 bool pair) {
  if (!items.is_array()) throw Error(where + ": expected a list");
  std::vector<LayoutItem> out;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    const json& item = items[i];
    LayoutItem layout;
    if (item.is_object() && item.contains("Sequence")) {
      const json& s = item["Sequence"];
      const std::string id = s.value("id", "");
      if (id != "A" && !(pair && id == "B"))
        throw Error(at + ".Sequence.id: \"" + id + "\" is not " + (pair ? "A or B" : "A"));
      layout.text = id == "A" ? 0 : 1;
      layout.type = s.value("type_id", 0);
    } else if (item.is_object() && item.contains("SpecialToken")) {
      const json& s = item["SpecialToken"];
      const std::string id = s.value("id", "");
      if (!special.is_object() || !special.contains(id))
        throw Error(at + ".SpecialToken.id: \"" + id + "\" is not in special_tokens");
      const json& ids = special[id]["ids"];
      if (!ids.is_array()) throw Error(where + ": special_tokens." + id + ".ids: expected a list");
      for (const auto& v : ids) {
        if (!v.is_number_integer() || v.get<int64_t>() < 0)
          throw Error(where + ": special_tokens." + id + ".ids: expected ids");
        layout.ids.push_back(v.get<int32_t>());
      }
      layout.type = s.value("type_id", 0);
    } else {
      throw Error(at + ": expected a Sequence or a SpecialToken");
    }
    if (layout.type < 0) throw Error(at + ".type_id: negative");
    out.push_back(std::move(layout));
  }
  return out;
}

std::unique_ptr<PostProcessor> MakeTemplate(const json& spec, const std::string& where) {
  const json& special = spec.contains("special_tokens") ? spec["special_tokens"] : json::object();
  return std::make_unique<Layout>(
      Template(Required(spec, "single", where), special, where + ".single", false),
      Template(Required(spec, "pair", where), special, where + ".pair", true), true);
}

// Sequence: the ByteLevel steps change no id (they may trim offsets); at
// most one step lays out ids.
std::unique_ptr<PostProcessor> MakeSequence(const json& spec, const std::string& where) {
  std::unique_ptr<PostProcessor> layout;
  bool trim = false, add_prefix_space = false;
  auto steps = BuildSteps(spec, "processors", where, "a post-processor", MakePostProcessor);
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!steps[i]) continue;
    if (steps[i]->trim_offsets()) {
      trim = true;
      add_prefix_space = steps[i]->add_prefix_space();
    }
    if (!steps[i]->lays_out()) continue;
    if (layout) {
      throw Error(where + ".processors[" + std::to_string(i) +
                  "]: a second step that adds special tokens; phasor reads one");
    }
    layout = std::move(steps[i]);
  }
  if (!layout) layout = std::make_unique<ByteLevelPost>();
  if (trim) layout->SetTrim(true, add_prefix_space);
  return layout;
}

using Builder = std::unique_ptr<PostProcessor> (*)(const json&, const std::string&);

// Every post-processor tokenizer.json may name; ByteLevel changes offsets only.
const Kinds<Builder, 5> kKinds = {{
    {"TemplateProcessing", MakeTemplate},
    {"BertProcessing", MakeBert},
    {"RobertaProcessing", MakeRoberta},
    {"ByteLevel", MakeByteLevel},
    {"Sequence", MakeSequence},
}};

}  // namespace

void ConcatenateWithoutSpecialTokens(const TextTokens& a, const TextTokens* b, Encoding& out) {
  ClearEncoding(out);
  out.ids.assign(a.ids.begin(), a.ids.end());
  out.types.assign(a.ids.size(), 0);
  if (a.with_offsets) AppendOffsets(&a, a.ids.size(), out);
  if (b) {
    out.pair_start = static_cast<int64_t>(out.ids.size());
    out.ids.insert(out.ids.end(), b->ids.begin(), b->ids.end());
    out.types.insert(out.types.end(), b->ids.size(), 1);
    if (a.with_offsets) AppendOffsets(b, b->ids.size(), out);
  }
}

std::unique_ptr<PostProcessor> MakePostProcessor(const json& spec, const std::string& where) {
  if (spec.is_null()) return nullptr;
  return FindKind(kKinds, TypeOf(spec, where), where, "a post-processor")(spec, where);
}

}  // namespace phasor::tokenizers

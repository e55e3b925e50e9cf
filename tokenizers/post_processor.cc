#include "tokenizers/post_processor.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "engine/error.h"
#include "tokenizers/fields.h"
#include "tokenizers/kinds.h"
#include "tokenizers/tokenizer.h"

namespace phasor::tokenizers {
namespace {

using nlohmann::json;

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

  void Process(const std::vector<int32_t>& a, const std::vector<int32_t>* b, bool add_special,
               Encoding& out) const override {
    if (!add_special && !template_types_) {
      ConcatenateWithoutSpecialTokens(a, b, out);
      return;
    }
    out.ids.clear();
    out.types.clear();
    out.pair_start = -1;
    int64_t b_start = -1;
    for (const auto& item : b ? pair_ : single_) {
      if (item.text < 0 && !add_special) continue;
      const std::vector<int32_t>* ids = &item.ids;
      if (item.text == 0) ids = &a;
      if (item.text == 1) {
        ids = b;
        b_start = static_cast<int64_t>(out.ids.size());
      }
      if (item.type == 1 && out.pair_start < 0 && !ids->empty())
        out.pair_start = static_cast<int64_t>(out.ids.size());
      out.ids.insert(out.ids.end(), ids->begin(), ids->end());
      out.types.insert(out.types.end(), ids->size(), item.type);
    }
    if (b && out.pair_start < 0) out.pair_start = b_start;
  }

 private:
  std::vector<LayoutItem> single_, pair_;
  bool template_types_;
};

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
  return std::make_unique<Layout>(
      std::vector<LayoutItem>{{cls, -1, 0}, {{}, 0, 0}, {sep, -1, 0}},
      std::vector<LayoutItem>{
          {cls, -1, 0}, {{}, 0, 0}, {sep, -1, 0}, {sep, -1, 0}, {{}, 1, 0}, {sep, -1, 0}},
      false);
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

// Sequence: the ByteLevel steps change no id; at most one step lays out ids.
std::unique_ptr<PostProcessor> MakeSequence(const json& spec, const std::string& where) {
  std::unique_ptr<PostProcessor> layout;
  auto steps = BuildSteps(spec, "processors", where, "a post-processor", MakePostProcessor);
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!steps[i]) continue;  // ByteLevel
    if (layout) {
      throw Error(where + ".processors[" + std::to_string(i) +
                  "]: a second step that adds special tokens; phasor reads one");
    }
    layout = std::move(steps[i]);
  }
  return layout;
}

using Builder = std::unique_ptr<PostProcessor> (*)(const json&, const std::string&);

// Every post-processor tokenizer.json may name; ByteLevel changes offsets only.
const Kinds<Builder, 5> kKinds = {{
    {"TemplateProcessing", MakeTemplate},
    {"BertProcessing", MakeBert},
    {"RobertaProcessing", MakeRoberta},
    {"ByteLevel",
     [](const json&, const std::string&) -> std::unique_ptr<PostProcessor> { return nullptr; }},
    {"Sequence", MakeSequence},
}};

}  // namespace

void ConcatenateWithoutSpecialTokens(const std::vector<int32_t>& a, const std::vector<int32_t>* b,
                                     Encoding& out) {
  out.ids.assign(a.begin(), a.end());
  out.types.assign(a.size(), 0);
  out.pair_start = -1;
  if (b) {
    out.pair_start = static_cast<int64_t>(out.ids.size());
    out.ids.insert(out.ids.end(), b->begin(), b->end());
    out.types.insert(out.types.end(), b->size(), 1);
  }
}

std::unique_ptr<PostProcessor> MakePostProcessor(const json& spec, const std::string& where) {
  if (spec.is_null()) return nullptr;
  return FindKind(kKinds, TypeOf(spec, where), where, "a post-processor")(spec, where);
}

}  // namespace phasor::tokenizers

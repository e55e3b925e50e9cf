#include "models/config.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "engine/edit_distance.h"
#include "engine/error.h"
#include "engine/json_text.h"
#include "engine/memory_limit.h"
#include "engine/model_folder.h"
#include "engine/size_limits.h"
#include "layers/positional.h"
#include "models/config_head.h"
#include "models/config_limits.h"
#include "models/config_parts.h"
#include "models/presets.h"

namespace phasor {
namespace {

using Json = nlohmann::json;

const std::vector<std::string>& TopKeys() {
  static const std::vector<std::string> keys = {
      "vocab_size",   "d_model",    "n_heads",     "n_layers",       "d_ff",
      "activation",   "norm_first", "final_norm",  "layer_norm_eps", "scale_embedding",
      "pad_token_id", "positional", "token_types", "embedding_norm", "head",
      "gated_ff",     "bias",       "parts"};
  return keys;
}
const std::vector<std::string>& RequiredKeys() {
  static const std::vector<std::string> keys = {"vocab_size", "d_model", "n_heads", "n_layers",
                                                "d_ff"};
  return keys;
}
const std::vector<std::string>& PositionalKeys() {
  static const std::vector<std::string> keys = {"kind",       "base",    "layout", "denominator",
                                                "offset",     "max_len", "mode",   "preset",
                                                "rotary_dim", "scaling"};
  return keys;
}
const std::vector<std::string>& ScalingKeys() {
  static const std::vector<std::string> keys = {
      "type",      "factor",           "original_max_len", "beta_fast",
      "beta_slow", "attention_factor", "low_freq_factor",  "high_freq_factor"};
  return keys;
}

// A name or value from the file, quoted for a message.
std::string Quote(const std::string& text) { return json_text::Quote(text, 80); }
using json_text::Found;
using json_text::Printable;

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? ", " : "") + words[i];
  return out;
}

[[noreturn]] void UnknownKey(const std::string& source, const std::string& prefix,
                             const std::string& key, const std::vector<std::string>& known) {
  std::string message = source + ": unknown key " + Quote(prefix + key);
  if (key.size() < 64) {
    for (const std::string& candidate : known) {
      if (EditDistance(key, candidate) <= 2) {
        message.append(" (did you mean '").append(prefix).append(candidate).append("'?)");
        break;
      }
    }
  }
  throw Error(message + ", expected one of " + Join(known));
}

using json_text::ParseStrictJson;
using json_text::StructureError;

// Typed reads of one key; name is the dotted key for messages.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void Fail(const std::string& name, const std::string& what) const {
    throw Error(source_ + ": key '" + name + "': " + what);
  }

  int64_t Int(const Json& v, const std::string& name) const {
    if (!v.is_number_integer()) Fail(name, "expected an integer, found " + Found(v));
    if (v.is_number_unsigned() &&
        v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      Fail(name, Found(v) + " is out of range, expected a 64-bit signed integer");
    }
    return v.get<int64_t>();
  }
  double Number(const Json& v, const std::string& name) const {
    if (!v.is_number()) Fail(name, "expected a number, found " + Found(v));
    return v.get<double>();
  }
  bool Bool(const Json& v, const std::string& name) const {
    if (!v.is_boolean()) Fail(name, "expected true or false, found " + Found(v));
    return v.get<bool>();
  }
  std::string String(const Json& v, const std::string& name) const {
    if (!v.is_string()) Fail(name, "expected a string, found " + Found(v));
    return v.get<std::string>();
  }
  // Runs a positional.h parser, prefixing its message with the key.
  template <typename Parse>
  auto Enum(const Json& v, const std::string& name, Parse parse) const {
    const std::string s = String(v, name);
    try {
      return parse(s);
    } catch (const Error& e) {
      Fail(name, e.what());
    }
  }

 private:
  const std::string& source_;
};

Activation ParseActivation(const Reader& r, const Json& v) {
  const std::string s = r.String(v, "activation");
  if (s == "relu") return Activation::kRelu;
  if (s == "gelu") return Activation::kGelu;
  if (s == "gelu_tanh") return Activation::kGeluTanh;
  if (s == "silu") return Activation::kSilu;
  r.Fail("activation",
         "unknown value " + Quote(s) + ", expected one of relu, gelu, gelu_tanh, silu");
}

PositionalKind ParseKind(const Reader& r, const Json& v) {
  const std::string s = r.String(v, "positional.kind");
  if (s == "sinusoidal") return PositionalKind::kSinusoidal;
  if (s == "learned") return PositionalKind::kLearned;
  if (s == "rope") return PositionalKind::kRope;
  if (s == "none") return PositionalKind::kNone;
  r.Fail("positional.kind",
         "unknown value " + Quote(s) + ", expected one of sinusoidal, learned, rope, none");
}

RopeScaling ParseScaling(const std::string& source, const Reader& r, const Json& obj) {
  RopeScaling sc;
  if (obj.is_null()) return sc;
  if (!obj.is_object()) r.Fail("positional.scaling", "expected an object, found " + Found(obj));
  for (const auto& item : obj.items()) {
    const auto& known = ScalingKeys();
    if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
      UnknownKey(source, "positional.scaling.", item.key(), known);
    }
  }
  if (!obj.contains("type")) {
    r.Fail("positional.scaling.type",
           "missing, expected one of none, linear, ntk, dynamic, yarn, llama3");
  }
  sc.type = r.Enum(obj["type"], "positional.scaling.type", ParseRopeScalingType);
  const std::vector<std::string> used = RopeScalingKeysOf(sc.type);
  for (const auto& item : obj.items()) {
    if (item.key() == "type" || std::find(used.begin(), used.end(), item.key()) != used.end()) {
      continue;
    }
    r.Fail("positional.scaling." + item.key(),
           std::string("is not used by scaling type '") + ToString(sc.type) + "'" +
               (used.empty() ? std::string(" (it takes no other key)")
                             : " (it uses " + Join(used) + ")"));
  }
  if (sc.type == RopeScalingType::kNone) return sc;
  if (!obj.contains("factor")) {
    r.Fail("positional.scaling.factor",
           std::string("missing, required by scaling type '") + ToString(sc.type) + "'");
  }
  sc.factor = r.Number(obj["factor"], "positional.scaling.factor");
  if (obj.contains("original_max_len")) {
    sc.original_max_len = r.Int(obj["original_max_len"], "positional.scaling.original_max_len");
    if (sc.original_max_len <= 0) {
      r.Fail("positional.scaling.original_max_len",
             std::to_string(sc.original_max_len) + " is out of range, expected > 0");
    }
  }
  if (obj.contains("beta_fast")) {
    sc.beta_fast = r.Number(obj["beta_fast"], "positional.scaling.beta_fast");
  }
  if (obj.contains("beta_slow")) {
    sc.beta_slow = r.Number(obj["beta_slow"], "positional.scaling.beta_slow");
  }
  if (obj.contains("attention_factor")) {
    sc.attention_factor = r.Number(obj["attention_factor"], "positional.scaling.attention_factor");
  }
  if (obj.contains("low_freq_factor")) {
    sc.low_freq_factor = r.Number(obj["low_freq_factor"], "positional.scaling.low_freq_factor");
  }
  if (obj.contains("high_freq_factor")) {
    sc.high_freq_factor = r.Number(obj["high_freq_factor"], "positional.scaling.high_freq_factor");
  }
  return sc;
}

PositionalConfig ParsePositional(const std::string& source, const Reader& r, const Json& obj,
                                 std::optional<int32_t> pad_token_id) {
  if (!obj.is_object()) r.Fail("positional", "expected an object, found " + Found(obj));
  for (const auto& item : obj.items()) {
    const auto& known = PositionalKeys();
    if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
      UnknownKey(source, "positional.", item.key(), known);
    }
  }
  PositionalConfig p;
  if (obj.contains("kind")) p.kind = ParseKind(r, obj["kind"]);
  const bool rope = p.kind == PositionalKind::kRope;
  const std::string kind_text = std::string("'") + ToString(p.kind) + "'";
  for (const char* key : {"rotary_dim", "scaling"}) {
    if (!rope && obj.contains(key)) {
      r.Fail(std::string("positional.") + key,
             "applies to kind 'rope' only, found kind " + kind_text);
    }
  }
  if (rope && obj.contains("denominator")) {
    r.Fail("positional.denominator",
           "does not apply to kind 'rope' (its frequencies are base^(-2i/rotary_dim))");
  }
  if (obj.contains("preset") && p.kind != PositionalKind::kSinusoidal) {
    r.Fail("positional.preset", "applies to kind 'sinusoidal' only, found kind " + kind_text);
  }
  if (obj.contains("base")) p.base = r.Number(obj["base"], "positional.base");
  if (obj.contains("layout")) {
    if (rope) {
      p.rope_layout = r.Enum(obj["layout"], "positional.layout", ParseRopeLayout);
    } else {
      p.layout = r.Enum(obj["layout"], "positional.layout", ParsePeLayout);
    }
  }
  if (obj.contains("denominator")) {
    p.denominator = r.Enum(obj["denominator"], "positional.denominator", ParsePeDenominator);
  }
  if (obj.contains("offset")) p.offset = r.Int(obj["offset"], "positional.offset");
  if (obj.contains("max_len")) p.max_len = r.Int(obj["max_len"], "positional.max_len");
  if (obj.contains("mode")) p.mode = r.Enum(obj["mode"], "positional.mode", ParsePeMode);
  if (obj.contains("rotary_dim")) {
    p.rotary_dim = r.Int(obj["rotary_dim"], "positional.rotary_dim");
    if (p.rotary_dim < 2) {
      r.Fail("positional.rotary_dim",
             std::to_string(p.rotary_dim) + " is out of range, expected >= 2");
    }
  }
  if (obj.contains("scaling")) p.scaling = ParseScaling(source, r, obj["scaling"]);
  if (obj.contains("preset")) {
    p.preset = r.String(obj["preset"], "positional.preset");
    const PositionalPreset* preset = FindPositionalPreset(p.preset);
    if (!preset) {
      r.Fail("positional.preset",
             "unknown value " + Quote(p.preset) + ", expected one of " + PositionalPresetNames());
    }
    // Explicit keys override the preset.
    if (!obj.contains("layout")) p.layout = preset->layout;
    if (!obj.contains("denominator")) p.denominator = preset->denominator;
    if (!obj.contains("offset")) {
      const std::optional<int64_t> first = PresetFirstPosition(*preset, pad_token_id);
      if (!first) {
        r.Fail("positional.preset", Quote(p.preset) +
                                        " numbers the first token pad_token_id + 1, but "
                                        "pad_token_id is null; set pad_token_id or "
                                        "positional.offset");
      }
      p.offset = *first;
    }
  }
  return p;
}

// The "bias" object: which products carry a bias (each key optional, true by default).
LayerBiases ParseBias(const std::string& source, const Reader& r, const Json& obj) {
  if (!obj.is_object()) r.Fail("bias", "expected an object, found " + Found(obj));
  static const std::vector<std::string> keys = {"in_proj", "out_proj", "linear1", "linear2"};
  LayerBiases b;
  bool* fields[] = {&b.in_proj, &b.out_proj, &b.linear1, &b.linear2};
  for (const auto& item : obj.items()) {
    const auto at = std::find(keys.begin(), keys.end(), item.key());
    if (at == keys.end()) UnknownKey(source, "bias.", item.key(), keys);
    *fields[at - keys.begin()] = r.Bool(item.value(), "bias." + item.key());
  }
  return b;
}

std::string Str(int64_t v) { return std::to_string(v); }

// The shortest text that reads back as v (as in ConfigToJson).
std::string Str(double v) { return Json(v).dump(); }

}  // namespace

const char* ToString(PositionalKind v) {
  switch (v) {
    case PositionalKind::kSinusoidal:
      return "sinusoidal";
    case PositionalKind::kLearned:
      return "learned";
    case PositionalKind::kRope:
      return "rope";
    case PositionalKind::kNone:
      return "none";
  }
  return "?";
}

std::vector<std::string> RopeScalingKeysOf(RopeScalingType t) {
  switch (t) {
    case RopeScalingType::kNone:
      return {};
    case RopeScalingType::kLinear:
    case RopeScalingType::kNtk:
    case RopeScalingType::kGte:
      return {"factor"};
    case RopeScalingType::kDynamic:
      return {"factor", "original_max_len"};
    case RopeScalingType::kYarn:
      return {"factor", "original_max_len", "beta_fast", "beta_slow", "attention_factor"};
    case RopeScalingType::kLlama3:
      return {"factor", "original_max_len", "low_freq_factor", "high_freq_factor"};
  }
  return {};
}

RopeScaling ParseRopeScaling(const std::string& json_text, const std::string& source) {
  Json obj;
  try {
    obj = ParseStrictJson(json_text);
  } catch (const StructureError& e) {
    throw Error(source + ": " + e.message);
  } catch (const Json::exception& e) {
    throw Error(source + ": not valid JSON: " + Printable(e.what(), 300));
  }
  if (!obj.is_object()) {
    throw Error(source + ": expected an object, found " + std::string(obj.type_name()));
  }
  return ParseScaling(source, Reader(source), obj);
}

ModelConfig ParseConfig(const std::string& json_text, const std::string& source) {
  Json root;
  try {
    root = ParseStrictJson(json_text);
  } catch (const StructureError& e) {
    throw Error(source + ": " + e.message);
  } catch (const Json::exception& e) {
    throw Error(source + ": not valid JSON: " + Printable(e.what(), 300));
  }
  if (!root.is_object()) {
    throw Error(source + ": expected a JSON object, found " + std::string(root.type_name()));
  }
  for (const auto& item : root.items()) {
    const auto& known = TopKeys();
    if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
      UnknownKey(source, "", item.key(), known);
    }
  }
  for (const std::string& key : RequiredKeys()) {
    if (!root.contains(key)) throw Error(source + ": missing required key " + Quote(key));
  }

  const Reader r(source);
  ModelConfig c;
  c.vocab_size = r.Int(root["vocab_size"], "vocab_size");
  c.d_model = r.Int(root["d_model"], "d_model");
  c.n_heads = r.Int(root["n_heads"], "n_heads");
  c.n_layers = r.Int(root["n_layers"], "n_layers");
  c.d_ff = r.Int(root["d_ff"], "d_ff");
  if (root.contains("activation")) c.activation = ParseActivation(r, root["activation"]);
  if (root.contains("norm_first")) c.norm_first = r.Bool(root["norm_first"], "norm_first");
  if (root.contains("final_norm")) c.final_norm = r.Bool(root["final_norm"], "final_norm");
  if (root.contains("gated_ff")) c.gated_ff = r.Bool(root["gated_ff"], "gated_ff");
  if (root.contains("bias")) c.bias = ParseBias(source, r, root["bias"]);
  if (root.contains("layer_norm_eps")) {
    c.layer_norm_eps = r.Number(root["layer_norm_eps"], "layer_norm_eps");
  }
  if (root.contains("scale_embedding")) {
    c.scale_embedding = r.Bool(root["scale_embedding"], "scale_embedding");
  }
  if (root.contains("token_types")) c.token_types = r.Int(root["token_types"], "token_types");
  if (root.contains("embedding_norm")) {
    c.embedding_norm = r.Bool(root["embedding_norm"], "embedding_norm");
  }
  if (root.contains("pad_token_id") && !root["pad_token_id"].is_null()) {
    const Json& v = root["pad_token_id"];
    if (!v.is_number_integer())
      r.Fail("pad_token_id", "expected null or an integer, found " + Found(v));
    const int64_t id = r.Int(v, "pad_token_id");
    // A vocabulary of no id is vocab_size's error, named as such.
    if (c.vocab_size < 1) {
      r.Fail("vocab_size",
             Str(c.vocab_size) + " is out of range, expected 1 to 2147483647 (2^31 - 1)");
    }
    if (id < 0 || id >= c.vocab_size || id > std::numeric_limits<int32_t>::max()) {
      r.Fail("pad_token_id", Str(id) +
                                 " is outside the vocabulary, expected 0 to vocab_size - 1 (" +
                                 Str(c.vocab_size - 1) + ")");
    }
    c.pad_token_id = static_cast<int32_t>(id);
  }
  if (root.contains("positional")) {
    c.positional = ParsePositional(source, r, root["positional"], c.pad_token_id);
  }
  if (root.contains("head")) ParseHeadConfig(source, root["head"], c);
  if (root.contains("parts")) c.parts = ParseLayerParts(source, root["parts"]);
  ValidateConfig(c, source);
  return c;
}

namespace {
void ValidateSizes(const Reader& r, const ModelConfig& c);
}  // namespace

void ValidateConfig(const ModelConfig& c, const std::string& source) {
  const Reader r(source);
  auto in_range = [&](const char* name, int64_t v, int64_t lo, int64_t hi, const char* hi_text) {
    if (v < lo || v > hi) {
      r.Fail(name, Str(v) + " is out of range, expected " + Str(lo) + " to " + Str(hi) + hi_text);
    }
  };
  in_range("vocab_size", c.vocab_size, 1, kMaxVocab, " (2^31 - 1)");
  in_range("d_model", c.d_model, 1, kMaxDModel, "");
  if (c.d_model % 2 != 0) {
    r.Fail("d_model", Str(c.d_model) + " is odd, expected an even number (sin/cos pairs)");
  }
  if (c.n_heads < 1 || c.n_heads > c.d_model) {
    r.Fail("n_heads", Str(c.n_heads) + " is out of range, expected 1 to d_model " + Str(c.d_model));
  }
  if (c.parts.head_dim == 0 && c.d_model % c.n_heads != 0) {
    r.Fail("n_heads", Str(c.n_heads) + " does not divide d_model " + Str(c.d_model));
  }
  ValidateLayerParts(source, c);
  in_range("n_layers", c.n_layers, 1, kMaxLayers, "");
  in_range("d_ff", c.d_ff, 1, kMaxDFF, " (2^20)");
  if (!std::isfinite(c.layer_norm_eps) || c.layer_norm_eps <= 0) {
    r.Fail("layer_norm_eps",
           Str(c.layer_norm_eps) + " is out of range, expected a finite number > 0");
  }
  if (c.pad_token_id && (*c.pad_token_id < 0 || *c.pad_token_id >= c.vocab_size)) {
    r.Fail("pad_token_id", Str(int64_t{*c.pad_token_id}) +
                               " is outside the vocabulary, expected 0 to vocab_size - 1 (" +
                               Str(c.vocab_size - 1) + ")");
  }

  const PositionalConfig& p = c.positional;
  in_range("token_types", c.token_types, 0, 1024, "");
  if (!std::isfinite(p.base) || p.base <= 1) {
    r.Fail("positional.base", Str(p.base) + " is out of range, expected a finite number > 1");
  }
  in_range("positional.offset", p.offset, 0, kMaxPosition, " (2^40)");
  in_range("positional.max_len", p.max_len, 1, kMaxPositions, " (2^26)");
  if (!p.preset.empty() && !FindPositionalPreset(p.preset)) {
    r.Fail("positional.preset",
           "unknown value " + Quote(p.preset) + ", expected one of " + PositionalPresetNames());
  }
  if (p.kind == PositionalKind::kRope) {
    if (const auto problem = FindRopeProblem(p.RopeOptionsFor(c.d_head()))) {
      r.Fail("positional." + problem->key, problem->what);
    }
  }
  if (p.kind != PositionalKind::kRope && p.denominator == PeDenominator::kHalfMinusOne &&
      c.d_model < 4) {
    r.Fail("positional.denominator",
           "half_minus_one needs d_model >= 4, found d_model " + Str(c.d_model));
  }
  ValidateHeadConfig(source, c);  // the head's products
  ValidateSizes(r, c);
}

namespace {

// The tensors a config implies, each within kMaxWeightFloats. The ranges
// ValidateConfig checks first keep every product below 2^48: no overflow.
void ValidateSizes(const Reader& r, const ModelConfig& c) {
  const PositionalConfig& p = c.positional;
  const std::string limit = ", expected at most 2^34 (64 GiB of float32)";
  if (c.vocab_size * c.d_model > kMaxWeightFloats) {
    r.Fail("vocab_size", "embedding of vocab_size " + Str(c.vocab_size) + " * d_model " +
                             Str(c.d_model) + " = " + Str(c.vocab_size * c.d_model) +
                             " floats is too large" + limit);
  }
  // in_proj and out_proj: (2·n_heads + 2·kv_heads)·d_head columns of d_model.
  const int64_t per_layer =
      2 * (c.n_heads + c.kv_heads()) * c.d_head() * c.d_model + 2 * c.d_model * c.d_ff;
  if (per_layer > kMaxWeightFloats) {
    r.Fail("d_ff", "a layer of d_model " + Str(c.d_model) + " and d_ff " + Str(c.d_ff) +
                       " holds 4*d_model^2 + 2*d_model*d_ff = " + Str(per_layer) +
                       " floats, too large" + limit);
  }
  const bool has_table = p.kind == PositionalKind::kLearned ||
                         (p.kind == PositionalKind::kSinusoidal && p.mode != PeMode::kOnTheFly);
  if (has_table && p.max_len * c.d_model > kMaxWeightFloats) {
    r.Fail("positional.max_len", "a table of max_len " + Str(p.max_len) + " * d_model " +
                                     Str(c.d_model) + " = " + Str(p.max_len * c.d_model) +
                                     " floats is too large" + limit);
  }
  const int64_t rotary = p.RopeOptionsFor(c.d_head()).r();  // [max_len, rotary_dim] cos | sin
  if (p.kind == PositionalKind::kRope && p.mode != PeMode::kOnTheFly &&
      p.max_len * rotary > kMaxWeightFloats) {
    r.Fail("positional.max_len", "a RoPE table of max_len " + Str(p.max_len) + " * rotary_dim " +
                                     Str(rotary) + " floats is too large" + limit);
  }
}

}  // namespace

ModelConfig LoadConfig(const std::string& path) {
  ModelConfig config = ParseConfig(ReadJsonFileText(path), path);
  // From the config alone, before the weights file is opened: a small model
  // directory cannot make the encoder build a large PE table (or expect large
  // weights) before failing.
  CheckModelMemory(config, path);
  return config;
}

}  // namespace phasor

#include "models/config_parts.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/json_text.h"

namespace phasor {
namespace {

using Json = nlohmann::json;
using json_text::Found;

const std::vector<std::string> kPartKeys = {"n_kv_heads",
                                            "head_dim",
                                            "norm",
                                            "norm_bias",
                                            "norm_weight_offset",
                                            "qk_norm",
                                            "attention_scale",
                                            "causal",
                                            "sandwich",
                                            "first_attention_norm",
                                            "local",
                                            "distance_bias_radius"};
const std::vector<std::string> kLocalKeys = {"layers", "before", "after", "base"};

std::string Str(int64_t v) { return std::to_string(v); }

class PartReader {
 public:
  explicit PartReader(const std::string& source) : source_(source) {}
  [[noreturn]] void Fail(const std::string& key, const std::string& what) const {
    throw Error(source_ + ": key 'parts." + key + "': " + what);
  }
  void Keys(const Json& obj, const std::string& prefix,
            const std::vector<std::string>& known) const {
    if (!obj.is_object()) Fail(prefix, "expected an object, found " + Found(obj));
    for (const auto& item : obj.items()) {
      if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        Fail(prefix.empty() ? item.key() : prefix + "." + item.key(),
             "unknown key, expected one of " + list);
      }
    }
  }
  int64_t Int(const Json& v, const std::string& key) const {
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > (1ull << 62))) {
      Fail(key, "expected an integer, found " + Found(v));
    }
    return v.get<int64_t>();
  }
  double Number(const Json& v, const std::string& key) const {
    if (!v.is_number() || !std::isfinite(v.get<double>())) {
      Fail(key, "expected a finite number, found " + Found(v));
    }
    return v.get<double>();
  }
  bool Bool(const Json& v, const std::string& key) const {
    if (!v.is_boolean()) Fail(key, "expected true or false, found " + Found(v));
    return v.get<bool>();
  }

 private:
  const std::string& source_;
};

LocalAttention ParseLocal(const PartReader& r, const Json& obj) {
  r.Keys(obj, "local", kLocalKeys);
  LocalAttention local;
  if (obj.contains("layers")) {
    const Json& layers = obj["layers"];
    if (!layers.is_array()) r.Fail("local.layers", "expected an array of layer indices");
    for (const Json& l : layers) local.layers.push_back(r.Int(l, "local.layers"));
  }
  if (obj.contains("before")) local.window.before = r.Int(obj["before"], "local.before");
  if (obj.contains("after")) local.window.after = r.Int(obj["after"], "local.after");
  if (obj.contains("base")) local.base = r.Number(obj["base"], "local.base");
  return local;
}

}  // namespace

bool LayerParts::IsLocal(int64_t layer) const {
  return std::binary_search(local.layers.begin(), local.layers.end(), layer);
}

LayerParts ParseLayerParts(const std::string& source, const Json& obj) {
  const PartReader r(source);
  r.Keys(obj, "", kPartKeys);
  LayerParts p;
  auto has = [&](const char* key) { return obj.contains(key); };
  if (has("n_kv_heads")) p.n_kv_heads = r.Int(obj["n_kv_heads"], "n_kv_heads");
  if (has("head_dim")) p.head_dim = r.Int(obj["head_dim"], "head_dim");
  if (has("norm")) {
    const Json& v = obj["norm"];
    if (v == "layer_norm") {
      p.norm = NormKind::kLayerNorm;
    } else if (v == "rms_norm") {
      p.norm = NormKind::kRms;
    } else {
      r.Fail("norm", "expected \"layer_norm\" or \"rms_norm\", found " + Found(v));
    }
  }
  if (has("norm_bias")) p.norm_bias = r.Bool(obj["norm_bias"], "norm_bias");
  if (has("norm_weight_offset")) {
    p.norm_weight_offset = r.Number(obj["norm_weight_offset"], "norm_weight_offset");
  }
  if (has("qk_norm")) p.qk_norm = r.Bool(obj["qk_norm"], "qk_norm");
  if (has("attention_scale")) {
    p.attention_scale = r.Number(obj["attention_scale"], "attention_scale");
  }
  if (has("causal")) p.causal = r.Bool(obj["causal"], "causal");
  if (has("sandwich")) p.sandwich = r.Bool(obj["sandwich"], "sandwich");
  if (has("first_attention_norm")) {
    p.first_attention_norm = r.Bool(obj["first_attention_norm"], "first_attention_norm");
  }
  if (has("local")) p.local = ParseLocal(r, obj["local"]);
  if (has("distance_bias_radius")) {
    p.distance_bias_radius = r.Int(obj["distance_bias_radius"], "distance_bias_radius");
  }
  return p;
}

void ValidateLayerParts(const std::string& source, const ModelConfig& c) {
  const PartReader r(source);
  const LayerParts& p = c.parts;
  if (p.head_dim < 0 || p.head_dim > 65536) {
    r.Fail("head_dim",
           Str(p.head_dim) + " is out of range, expected 0 (d_model / n_heads) to 65536");
  }
  if (p.head_dim == 0 && c.d_model % c.n_heads != 0) {
    r.Fail("head_dim",
           "0 needs n_heads (" + Str(c.n_heads) + ") to divide d_model (" + Str(c.d_model) + ")");
  }
  if (p.n_kv_heads < 0 || p.n_kv_heads > c.n_heads ||
      (p.n_kv_heads > 0 && c.n_heads % p.n_kv_heads != 0)) {
    r.Fail("n_kv_heads",
           Str(p.n_kv_heads) + " must be 0 (n_heads) or divide n_heads (" + Str(c.n_heads) + ")");
  }
  if (p.norm == NormKind::kLayerNorm && p.norm_weight_offset != 0.0) {
    r.Fail("norm_weight_offset", "applies to rms_norm only");
  }
  if (p.attention_scale < 0) r.Fail("attention_scale", "expected 0 (1/sqrt(head_dim)) or more");
  if (!c.norm_first && (p.sandwich || !p.first_attention_norm)) {
    r.Fail(p.sandwich ? "sandwich" : "first_attention_norm", "needs norm_first (pre-LN)");
  }
  if (p.distance_bias_radius < 0 || p.distance_bias_radius > (int64_t{1} << 20)) {
    r.Fail("distance_bias_radius",
           Str(p.distance_bias_radius) + " is out of range, expected 0 to 2^20");
  }
  const LocalAttention& l = p.local;
  for (size_t i = 0; i < l.layers.size(); ++i) {
    if (l.layers[i] < 0 || l.layers[i] >= c.n_layers || (i > 0 && l.layers[i] <= l.layers[i - 1])) {
      r.Fail("local.layers", "expected ascending layer indices in [0, n_layers " + Str(c.n_layers) +
                                 "), found " + Str(l.layers[i]));
    }
  }
  if (l.window.before < -1 || l.window.after < -1) {
    r.Fail("local.before", "expected -1 (no limit) or a count of keys >= 0");
  }
  if (l.base != 0.0 && !(l.base > 1)) r.Fail("local.base", "expected 0 (positional.base) or > 1");
}

nlohmann::ordered_json LayerPartsToJson(const LayerParts& p) {
  const LayerParts d;
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (p.n_kv_heads != d.n_kv_heads) j["n_kv_heads"] = p.n_kv_heads;
  if (p.head_dim != d.head_dim) j["head_dim"] = p.head_dim;
  if (p.norm != d.norm) j["norm"] = "rms_norm";
  if (p.norm_bias != d.norm_bias) j["norm_bias"] = p.norm_bias;
  if (p.norm_weight_offset != d.norm_weight_offset) j["norm_weight_offset"] = p.norm_weight_offset;
  if (p.qk_norm != d.qk_norm) j["qk_norm"] = p.qk_norm;
  if (p.attention_scale != d.attention_scale) j["attention_scale"] = p.attention_scale;
  if (p.causal != d.causal) j["causal"] = p.causal;
  if (p.sandwich != d.sandwich) j["sandwich"] = p.sandwich;
  if (p.first_attention_norm != d.first_attention_norm) {
    j["first_attention_norm"] = p.first_attention_norm;
  }
  if (p.distance_bias_radius != 0) j["distance_bias_radius"] = p.distance_bias_radius;
  if (!p.local.layers.empty()) {
    j["local"] = {{"layers", p.local.layers},
                  {"before", p.local.window.before},
                  {"after", p.local.window.after},
                  {"base", p.local.base}};
  }
  return j.empty() ? nlohmann::ordered_json(nullptr) : j;
}

LayerNormOptions ModelConfig::NormOptions() const {
  return {d_model, static_cast<float>(layer_norm_eps), parts.norm, parts.norm_bias,
          static_cast<float>(parts.norm_weight_offset)};
}

EncoderLayerOptions ModelConfig::LayerOptions(int64_t l, Precision precision) const {
  EncoderLayerOptions lo;
  lo.d_model = d_model;
  lo.n_heads = n_heads;
  lo.d_ff = d_ff;
  lo.activation = activation;
  lo.norm_first = norm_first;
  lo.gated_ff = gated_ff;
  lo.bias = bias;
  lo.layer_norm_eps = static_cast<float>(layer_norm_eps);
  lo.precision = precision;
  lo.norm = NormOptions();
  AttentionShape& a = lo.attention;
  a.n_kv_heads = parts.n_kv_heads;
  a.d_head = parts.head_dim;
  a.scale = static_cast<float>(parts.attention_scale);
  if (parts.qk_norm) {
    a.qk_norm = {true, parts.norm, static_cast<float>(layer_norm_eps),
                 static_cast<float>(parts.norm_weight_offset)};
  }
  a.window = parts.IsLocal(l) ? parts.local.window : KeyWindow::Full();
  if (parts.causal) a.window.after = 0;
  a.bias_radius = parts.distance_bias_radius;
  lo.sandwich = parts.sandwich;
  lo.attention_norm = l > 0 || parts.first_attention_norm;
  return lo;
}

}  // namespace phasor

#include "models/config_head.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/json_text.h"

namespace phasor {
namespace {

using Json = nlohmann::json;
using json_text::Found;

constexpr int64_t kMaxWidth = 65536;  // as d_model's bound

std::string Str(int64_t v) { return std::to_string(v); }

class HeadReader {
 public:
  explicit HeadReader(const std::string& source) : source_(source) {}
  [[noreturn]] void Fail(const std::string& key, const std::string& what) const {
    throw Error(source_ + ": key '" + key + "': " + what);
  }
  // Error for a key of obj outside keys.
  void Keys(const Json& obj, const std::string& name, const std::vector<std::string>& keys) const {
    if (!obj.is_object()) Fail(name, "expected an object, found " + Found(obj));
    for (const auto& item : obj.items()) {
      bool known = false;
      for (const std::string& k : keys) known = known || k == item.key();
      if (known) continue;
      std::string list;
      for (size_t i = 0; i < keys.size(); ++i) {
        list += (i == 0 ? "" : i + 1 == keys.size() ? " or " : ", ") + keys[i];
      }
      Fail(name + "." + item.key(), "unknown key, expected " + list);
    }
  }
  int64_t Int(const Json& v, const std::string& name) const {
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX)) {
      Fail(name, "expected a 64-bit signed integer, found " + Found(v));
    }
    return v.get<int64_t>();
  }
  bool Bool(const Json& v, const std::string& name) const {
    if (!v.is_boolean()) Fail(name, "expected true or false, found " + Found(v));
    return v.get<bool>();
  }
  double Number(const Json& v, const std::string& name) const {
    if (!v.is_number()) Fail(name, "expected a number, found " + Found(v));
    return v.get<double>();
  }
  // A string given to parse (which throws Error on an unknown value).
  template <typename Parse>
  auto Enum(const Json& v, const std::string& name, Parse parse) const {
    if (!v.is_string()) Fail(name, "expected a string, found " + Found(v));
    try {
      return parse(v.get<std::string>());
    } catch (const Error& e) {
      Fail(name, e.what());
    }
  }

 private:
  const std::string& source_;
};

DenseProduct ParseProduct(const HeadReader& r, const Json& p, const std::string& name) {
  r.Keys(p, name, {"out", "activation", "bias", "norm"});
  if (!p.contains("out")) r.Fail(name + ".out", "missing required key");
  DenseProduct d;
  d.out = r.Int(p["out"], name + ".out");
  if (p.contains("activation")) {
    d.activation = r.Enum(p["activation"], name + ".activation", ParseHeadActivation);
  }
  if (p.contains("bias")) d.bias = r.Bool(p["bias"], name + ".bias");
  if (p.contains("norm")) {
    const Json& n = p["norm"];
    r.Keys(n, name + ".norm", {"eps", "bias"});
    HeadNorm norm;
    if (n.contains("eps")) norm.eps = r.Number(n["eps"], name + ".norm.eps");
    if (n.contains("bias")) norm.bias = r.Bool(n["bias"], name + ".norm.bias");
    d.norm = norm;
  }
  return d;
}

}  // namespace

void ParseHeadConfig(const std::string& source, const Json& obj, ModelConfig& c) {
  const HeadReader r(source);
  r.Keys(obj, "head", {"pooler", "pooling", "products"});
  if (obj.contains("pooler")) c.pooler_products = r.Int(obj["pooler"], "head.pooler");
  if (obj.contains("pooling"))
    c.head_pooling = r.Enum(obj["pooling"], "head.pooling", ParsePooling);
  if (!obj.contains("products")) return;
  const Json& list = obj["products"];
  if (!list.is_array()) r.Fail("head.products", "expected an array, found " + Found(list));
  for (size_t i = 0; i < list.size(); ++i) {
    c.head.push_back(ParseProduct(r, list[i], "head.products[" + std::to_string(i) + "]"));
  }
}

void ValidateHeadConfig(const std::string& source, const ModelConfig& c) {
  const HeadReader r(source);
  const auto check = [&](const std::string& name, int64_t v, int64_t lo, int64_t hi) {
    if (v < lo || v > hi) {
      r.Fail(name, Str(v) + " is out of range, expected " + Str(lo) + " to " + Str(hi));
    }
  };
  for (size_t i = 0; i < c.head.size(); ++i) {
    const std::string name = "head.products[" + Str(static_cast<int64_t>(i)) + "]";
    check(name + ".out", c.head[i].out, 1, kMaxWidth);
    if (c.head[i].norm && !(std::isfinite(c.head[i].norm->eps) && c.head[i].norm->eps >= 0)) {
      r.Fail(name + ".norm.eps", "expected a finite number >= 0");
    }
  }
  for (const DenseProduct& p : c.sentence_dense) check("out_features", p.out, 1, kMaxWidth);
  check("head.pooler", c.pooler_products, 0, static_cast<int64_t>(c.head.size()));
  if (c.head_pooling != Pooling::kCls && c.head_pooling != Pooling::kMean) {
    r.Fail("head.pooling", std::string("'") + ToString(c.head_pooling) +
                               "' is not a head's pooling, expected cls or mean");
  }
}

nlohmann::ordered_json HeadConfigToJson(const ModelConfig& c) {
  if (c.head.empty()) return nullptr;
  nlohmann::ordered_json products = nlohmann::ordered_json::array();
  for (const DenseProduct& h : c.head) {
    nlohmann::ordered_json p = {{"out", h.out}, {"activation", ToString(h.activation)}};
    if (!h.bias) p["bias"] = false;
    if (h.norm) p["norm"] = {{"eps", h.norm->eps}, {"bias", h.norm->bias}};
    products.push_back(p);
  }
  nlohmann::ordered_json j = {{"pooler", c.pooler_products}};
  if (c.head_pooling != Pooling::kCls) j["pooling"] = ToString(c.head_pooling);
  j["products"] = products;
  return j;
}

}  // namespace phasor

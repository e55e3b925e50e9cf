#include "models/architectures/architecture.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "engine/error.h"
#include "engine/safetensors.h"
#include "models/architectures/checkpoint_config.h"
#include "models/config_limits.h"

namespace phasor {

std::string ModelTypeOf(const std::string& config_text, const std::string& source) {
  return CheckpointConfig(config_text, source).String("model_type", "");
}

const Architecture& FindArchitecture(const std::string& model_type, const std::string& source) {
  std::string supported;
  for (const Architecture& a : Architectures()) {
    for (const std::string& t : a.model_types) {
      if (t == model_type) return a;
      supported += (supported.empty() ? "" : ", ") + t;
    }
  }
  throw Error(source + ": key 'model_type': '" + model_type +
              "' is not an architecture phasor reads; it reads " + supported);
}

std::string FindPrefix(const Weights& w, const std::string& tail) {
  std::vector<std::string> found;
  for (const std::string& name : w.Names()) {
    if (name.size() >= tail.size() &&
        name.compare(name.size() - tail.size(), tail.size(), tail) == 0) {
      found.push_back(name.substr(0, name.size() - tail.size()));
    }
  }
  if (found.size() != 1) {
    throw Error(w.source() + ": " +
                (found.empty()
                     ? "no tensor '" + tail + "'"
                     : "two models in one file ('" + found[0] + "', '" + found[1] + "')"));
  }
  return found[0];
}

void MoveTensor(Weights& w, const std::string& from, const std::string& to, const Shape& expected) {
  Tensor t = w.Take(from);
  if (t.shape != expected) {
    throw Error(w.source() + ": tensor '" + from + "': got " + ShapeToString(t.shape) +
                ", expected " + ShapeToString(expected));
  }
  w.Put(to, std::move(t));
}

Tensor StackTensors(Weights& w, const std::vector<std::string>& names, const Shape& each) {
  return StackRows(w, names, std::vector<Shape>(names.size(), each));
}

Tensor StackRows(Weights& w, const std::vector<std::string>& names,
                 const std::vector<Shape>& shapes) {
  std::vector<Tensor> parts;
  bool bf16 = true;
  Tensor out;
  out.shape = shapes.at(0);
  out.shape[0] = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    parts.push_back(w.Take(names[i]));
    if (parts.back().shape != shapes[i]) {
      throw Error(w.source() + ": tensor '" + names[i] + "': got " +
                  ShapeToString(parts.back().shape) + ", expected " + ShapeToString(shapes[i]));
    }
    bf16 = bf16 && !parts.back().bf16.empty();
    out.shape[0] += shapes[i][0];
  }
  const auto total = static_cast<size_t>(NumElements(out.shape));
  if (bf16) {
    out.bf16.reserve(total);
  } else {
    out.data.reserve(total);  // filled once, never moved
  }
  for (Tensor& t : parts) {
    if (bf16) {
      out.bf16.insert(out.bf16.end(), t.bf16.begin(), t.bf16.end());
    } else if (!t.bf16.empty()) {
      for (uint16_t bits : t.bf16) {
        const uint32_t f = static_cast<uint32_t>(bits) << 16;
        float v;
        std::memcpy(&v, &f, 4);
        out.data.push_back(v);
      }
    } else {
      out.data.insert(out.data.end(), t.data.begin(), t.data.end());
    }
    t = Tensor();  // freed once copied
  }
  return out;
}

Activation CheckpointActivation(const std::string& name) {
  if (name == "relu") return Activation::kRelu;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::kGeluTanh;
  if (name == "silu" || name == "swish") return Activation::kSilu;
  return Activation::kGelu;
}

void TranslateLayer(Weights& w, const std::string& from, int64_t i, const LayerNames& n, int64_t d,
                    int64_t ff) {
  const std::string to = "layers." + std::to_string(i) + ".";
  const std::string q = from + n.q, k = from + n.k, v = from + n.v;
  w.Put(to + "self_attn.in_proj_weight",
        StackTensors(w, {q + "weight", k + "weight", v + "weight"}, {d, d}));
  w.Put(to + "self_attn.in_proj_bias", StackTensors(w, {q + "bias", k + "bias", v + "bias"}, {d}));
  struct Part {
    const char* from;
    const char* to;
    Shape weight, bias;
  };
  const Part parts[] = {{n.out, "self_attn.out_proj.", {d, d}, {d}},
                        {n.norm1, "norm1.", {d}, {d}},
                        {n.ff1, "linear1.", {ff, d}, {ff}},
                        {n.ff2, "linear2.", {d, ff}, {d}},
                        {n.norm2, "norm2.", {d}, {d}}};
  for (const Part& p : parts) {
    MoveTensor(w, from + p.from + "weight", to + p.to + "weight", p.weight);
    MoveTensor(w, from + p.from + "bias", to + p.to + "bias", p.bias);
  }
}

void AddHeadProduct(TranslatedModel& m, const std::string& from, int64_t out,
                    HeadActivation activation) {
  AddHeadProduct(m, from, DenseProduct{out, activation});
}

void AddHeadProduct(TranslatedModel& m, const std::string& from, const DenseProduct& product) {
  ModelConfig& c = m.config;
  const int64_t in = c.head.empty() ? c.d_model : c.head.back().out, out = product.out;
  const std::string to = "head." + std::to_string(c.head.size()) + ".";
  MoveTensor(m.weights, from + "weight", to + "weight", {out, in});
  if (product.bias) MoveTensor(m.weights, from + "bias", to + "bias", {out});
  c.head.push_back(product);
}

void AddHeadNorm(TranslatedModel& m, const std::string& from, const HeadNorm& norm) {
  ModelConfig& c = m.config;
  const int64_t out = c.head.back().out;
  const std::string to = "head." + std::to_string(c.head.size() - 1) + ".norm.";
  MoveTensor(m.weights, from + "weight", to + "weight", {out});
  if (norm.bias) MoveTensor(m.weights, from + "bias", to + "bias", {out});
  c.head.back().norm = norm;
}

void AddRobertaClassificationHead(TranslatedModel& m, const CheckpointConfig& cfg,
                                  const std::string& from, const std::string& pooler) {
  AddHeadProduct(m, from + "dense.", m.config.d_model, HeadActivation::kTanh);
  AddHeadProduct(m, from + "out_proj.", NumLabels(cfg), HeadActivation::kIdentity);
  for (const std::string& name : {pooler + "weight", pooler + "bias"}) {
    if (m.weights.Has(name)) m.weights.Take(name);
  }
}

bool HasSequenceClassifier(const CheckpointConfig& cfg, const Weights& w,
                           const std::string& tensor) {
  if (!IsSequenceClassifier(cfg)) return false;
  return !cfg.StringList("architectures").empty() || w.Has(tensor);
}

void MoveBertEmbeddings(Weights& w, const std::string& e, const std::string& norm,
                        const ModelConfig& c) {
  const int64_t d = c.d_model;
  MoveTensor(w, e + "word_embeddings.weight", "embedding.weight", {c.vocab_size, d});
  if (c.positional.kind == PositionalKind::kLearned) {
    MoveTensor(w, e + "position_embeddings.weight", "positional.weight", {c.positional.max_len, d});
  }
  if (c.token_types > 0) {
    MoveTensor(w, e + "token_type_embeddings.weight", "token_type.weight", {c.token_types, d});
  }
  MoveTensor(w, norm + "weight", "embedding_norm.weight", {d});
  MoveTensor(w, norm + "bias", "embedding_norm.bias", {d});
}

void ReadSizes(const CheckpointConfig& cfg, ModelConfig& c, int64_t max_heads) {
  c.vocab_size = cfg.Int("vocab_size", 1, kMaxVocab);
  c.d_model = cfg.Int("hidden_size", 2, kMaxDModel);
  c.n_heads = cfg.Int("num_attention_heads", 1, max_heads > 0 ? max_heads : c.d_model);
  c.n_layers = cfg.Int("num_hidden_layers", 1, kMaxLayers);
  c.d_ff = cfg.Int("intermediate_size", 1, kMaxDFF);
}

bool IsSequenceClassifier(const CheckpointConfig& cfg) {
  const std::vector<std::string> names = cfg.StringList("architectures");
  const std::string tail = "ForSequenceClassification";
  return names.empty() || std::any_of(names.begin(), names.end(), [&](const std::string& n) {
           return n.size() >= tail.size() &&
                  n.compare(n.size() - tail.size(), tail.size(), tail) == 0;
         });
}

int64_t NumLabels(const CheckpointConfig& cfg) {
  if (cfg.Has("id2label")) {
    const auto labels = cfg.StringMap("id2label");
    if (labels.empty()) cfg.Fail("id2label", "names no label");
    return static_cast<int64_t>(labels.size());
  }
  return cfg.Int("num_labels", 1, int64_t{1} << 20, 2);
}

namespace {

// The shards of an index, each read whole, their tensors gathered into one
// set; every tensor, and every index buffer (position_ids) a shard leaves out,
// where the map says it is.
Weights LoadShards(const WeightFiles& files) {
  const std::map<std::string, std::string>& map = files.shard_of;
  std::set<std::string> found;
  Weights all(files.index);
  for (const std::string& file : files.files) {
    std::vector<std::string> left_out;
    Weights shard = LoadSafetensors(file, &left_out);
    std::vector<std::string> names = shard.Names();
    names.insert(names.end(), left_out.begin(), left_out.end());
    for (const std::string& name : names) {
      const auto it = map.find(name);
      if (it == map.end() || it->second != file) {
        throw Error(file + ": tensor '" + name + "' is not mapped to this file by " + files.index);
      }
      found.insert(name);
      if (shard.Has(name)) all.Put(name, shard.Take(name));
    }
  }
  for (const auto& [name, file] : map) {
    if (found.count(name) == 0) {
      throw Error(files.index + ": tensor '" + name + "' is not in " +
                  file.substr(file.rfind('/') + 1));
    }
  }
  return all;
}

}  // namespace

void MoveEncoderTokenTable(Weights& w, const std::string& pre, const Shape& expected) {
  const std::string own = pre + "encoder.embed_tokens.weight";
  MoveTensor(w, w.Has(own) ? own : pre + "shared.weight", "embedding.weight", expected);
}

void DropDecoder(Weights& w, const std::string& pre, const std::vector<std::string>& also) {
  std::vector<std::string> prefixes = {pre + "decoder.", pre + "shared."};
  for (const std::string& a : also) prefixes.push_back(pre + a);
  for (const std::string& name : w.Names()) {
    bool drop = name == "lm_head.weight" || name == "final_logits_bias" ||
                name == pre + "final_logits_bias";
    for (const std::string& p : prefixes) drop = drop || name.rfind(p, 0) == 0;
    if (drop) w.Take(name);
  }
}

Weights LoadCheckpointWeights(const ModelFolder& folder) {
  const WeightFiles& files = folder.weights();
  return files.index.empty() ? LoadSafetensors(files.files[0]) : LoadShards(files);
}

}  // namespace phasor

// A named set of float32 tensors: what a model directory's safetensors file
// holds once loaded, or what the toy model generates.
//
// Layers declare the tensors they need by name and shape in their
// constructors: Require() for those that must exist, Optional() for those that
// may not. A missing or misshapen tensor is an Error naming it:
//   model.safetensors: tensor 'layers.0.norm1.weight': got [255], expected [256]
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "engine/tensor.h"

namespace phasor {

using Shape = std::vector<int64_t>;

std::string ShapeToString(const Shape& shape);  // "[3, 4]"
int64_t NumElements(const Shape& shape);

struct Tensor {
  Shape shape;
  AlignedFloats data;  // row-major, NumElements(shape) values
};

class Weights {
 public:
  // source names the origin in messages (usually the file path).
  explicit Weights(std::string source = "weights") : source_(std::move(source)) {}
  Weights(Weights&& other) noexcept;
  Weights& operator=(Weights&& other) noexcept;

  // Adds a tensor. Throws Error if the name exists or data does not match shape.
  void Add(const std::string& name, Shape shape, std::vector<float> data);
  void AddAligned(const std::string& name, Shape shape, AlignedFloats data);  // no copy

  // The tensor's data, which stays valid while this object lives.
  // Throws Error if it is missing or its shape differs from the expected one.
  const float* Require(const std::string& name, const Shape& expected) const;
  // As Require, but returns nullptr if the tensor is absent.
  const float* Optional(const std::string& name, const Shape& expected) const;

  bool Has(const std::string& name) const { return tensors_.count(name) != 0; }
  const Tensor& Get(const std::string& name) const;  // throws Error if missing
  std::vector<std::string> Names() const;
  // Frees the tensor's values, keeping its name and shape: for a tensor a
  // layer has copied into a form of its own (packed, quantized). Require and
  // Optional on it then throw Error; Get returns it without values. Throws
  // Error if it is missing. Not to be called while other threads read it.
  void Release(const std::string& name);
  bool Released(const std::string& name) const { return released_.count(name) != 0; }
  // Names no Require/Optional call has asked for (e.g. a misspelt tensor).
  std::vector<std::string> UnusedNames() const;
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::map<std::string, Tensor> tensors_;
  mutable std::mutex used_mutex_;
  mutable std::set<std::string> used_;
  std::set<std::string> released_;
};

}  // namespace phasor

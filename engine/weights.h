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
  // Row-major, NumElements(shape) values. A tensor read from a BF16 file holds
  // its values in bf16 instead until asked for as floats (Require, Optional,
  // Floats), which turns them into these; a released tensor holds neither.
  mutable AlignedFloats data;
  mutable std::vector<uint16_t> bf16;  // row-major bfloat16 bits, as a BF16 file stores them
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
  // A tensor kept in bfloat16 (a BF16 safetensors tensor): its float32 values
  // are made only if a caller asks for floats.
  void AddBf16(const std::string& name, Shape shape, std::vector<uint16_t> bits);

  // Removes a tensor and returns it as it is held (floats or bfloat16 bits):
  // to rename it or join it with others without a copy. Error if missing.
  Tensor Take(const std::string& name);
  // Adds a tensor as Take returned it. Error if the name exists.
  void Put(const std::string& name, Tensor tensor);

  // The tensor's data, which stays valid while this object lives.
  // Throws Error if it is missing or its shape differs from the expected one.
  const float* Require(const std::string& name, const Shape& expected) const;
  // As Require, but returns nullptr if the tensor is absent.
  const float* Optional(const std::string& name, const Shape& expected) const;
  // The tensor's bfloat16 bits if it is kept in bfloat16, else nullptr (ask
  // Require for its floats). Errors as Require's for a missing, misshapen or
  // released tensor.
  const uint16_t* RequireBf16(const std::string& name, const Shape& expected) const;
  // The tensor's float32 values, made from bfloat16 if need be, without
  // counting it as used (for tools that copy or scan every tensor). Throws
  // Error if it is missing or released.
  const float* Floats(const std::string& name) const;

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
  const float* Optional(const std::string& name, const Shape& expected, bool as_floats) const;
  const float* Require(const std::string& name, const Shape& expected, bool as_floats) const;

  std::string source_;
  std::map<std::string, Tensor> tensors_;
  mutable std::mutex used_mutex_;
  mutable std::set<std::string> used_;
  std::set<std::string> released_;
};

}  // namespace phasor

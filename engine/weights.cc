#include "engine/weights.h"

#include <sstream>

#include "engine/bfloat16.h"
#include "engine/error.h"

namespace phasor {

std::string ShapeToString(const Shape& shape) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < shape.size(); ++i) s << (i ? ", " : "") << shape[i];
  s << "]";
  return s.str();
}

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Weights::Weights(Weights&& other) noexcept
    : source_(std::move(other.source_)),
      tensors_(std::move(other.tensors_)),
      used_(std::move(other.used_)),
      released_(std::move(other.released_)) {}

Weights& Weights::operator=(Weights&& other) noexcept {
  source_ = std::move(other.source_);
  tensors_ = std::move(other.tensors_);
  used_ = std::move(other.used_);
  released_ = std::move(other.released_);
  return *this;
}

void Weights::Add(const std::string& name, Shape shape, std::vector<float> data) {
  AddAligned(name, std::move(shape), AlignedFloats(data.begin(), data.end()));
}

void Weights::AddAligned(const std::string& name, Shape shape, AlignedFloats data) {
  if (tensors_.count(name)) throw Error(source_ + ": tensor '" + name + "' appears twice");
  if (static_cast<int64_t>(data.size()) != NumElements(shape)) {
    throw Error(source_ + ": tensor '" + name + "' has " + std::to_string(data.size()) +
                " values for shape " + ShapeToString(shape));
  }
  tensors_[name] = Tensor{std::move(shape), std::move(data), {}};
}

void Weights::AddBf16(const std::string& name, Shape shape, std::vector<uint16_t> bits) {
  if (tensors_.count(name)) throw Error(source_ + ": tensor '" + name + "' appears twice");
  if (static_cast<int64_t>(bits.size()) != NumElements(shape)) {
    throw Error(source_ + ": tensor '" + name + "' has " + std::to_string(bits.size()) +
                " values for shape " + ShapeToString(shape));
  }
  tensors_[name] = Tensor{std::move(shape), {}, std::move(bits)};
}

Tensor Weights::Take(const std::string& name) {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) throw Error(source_ + ": missing tensor '" + name + "'");
  Tensor t = std::move(it->second);
  tensors_.erase(it);
  released_.erase(name);
  std::lock_guard<std::mutex> lock(used_mutex_);
  used_.erase(name);
  return t;
}

void Weights::Put(const std::string& name, Tensor tensor) {
  if (tensors_.count(name)) throw Error(source_ + ": tensor '" + name + "' appears twice");
  tensors_[name] = std::move(tensor);
}

const float* Weights::Floats(const std::string& name) const {
  const Tensor& t = Get(name);
  if (released_.count(name)) {
    throw Error(source_ + ": tensor '" + name + "' was released once its layer had packed it");
  }
  std::lock_guard<std::mutex> lock(used_mutex_);
  if (t.data.empty() && !t.bf16.empty()) {
    t.data.resize(t.bf16.size());
    for (size_t i = 0; i < t.bf16.size(); ++i) t.data[i] = BFloat16ToFloat(t.bf16[i]);
    std::vector<uint16_t>().swap(t.bf16);  // held once
  }
  return t.data.data();
}

const uint16_t* Weights::RequireBf16(const std::string& name, const Shape& expected) const {
  Require(name, expected, /*as_floats=*/false);  // the checks, no floats made
  const Tensor& t = Get(name);
  return t.bf16.empty() ? nullptr : t.bf16.data();
}

const float* Weights::Optional(const std::string& name, const Shape& expected) const {
  return Optional(name, expected, /*as_floats=*/true);
}

const float* Weights::Optional(const std::string& name, const Shape& expected,
                               bool as_floats) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) return nullptr;
  if (released_.count(name)) {
    throw Error(source_ + ": tensor '" + name + "' was released once its layer had packed it");
  }
  {
    std::lock_guard<std::mutex> lock(used_mutex_);
    used_.insert(name);
  }
  if (it->second.shape != expected) {
    throw Error(source_ + ": tensor '" + name + "': got " + ShapeToString(it->second.shape) +
                ", expected " + ShapeToString(expected));
  }
  return as_floats ? Floats(name) : it->second.data.data();
}

const float* Weights::Require(const std::string& name, const Shape& expected) const {
  return Require(name, expected, /*as_floats=*/true);
}

const float* Weights::Require(const std::string& name, const Shape& expected,
                              bool as_floats) const {
  if (!tensors_.count(name)) {
    throw Error(source_ + ": missing tensor '" + name + "' (expected " + ShapeToString(expected) +
                ")");
  }
  return Optional(name, expected, as_floats);
}

const Tensor& Weights::Get(const std::string& name) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) throw Error(source_ + ": missing tensor '" + name + "'");
  return it->second;
}

void Weights::Release(const std::string& name) {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) throw Error(source_ + ": missing tensor '" + name + "'");
  AlignedFloats().swap(it->second.data);
  std::vector<uint16_t>().swap(it->second.bf16);
  released_.insert(name);
}

std::vector<std::string> Weights::Names() const {
  std::vector<std::string> names;
  for (const auto& kv : tensors_) names.push_back(kv.first);
  return names;
}

std::vector<std::string> Weights::UnusedNames() const {
  std::lock_guard<std::mutex> lock(used_mutex_);
  std::vector<std::string> names;
  for (const auto& kv : tensors_) {
    if (!used_.count(kv.first)) names.push_back(kv.first);
  }
  return names;
}

}  // namespace phasor

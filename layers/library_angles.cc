#include "layers/library_angles.h"

#include <algorithm>
#include <cmath>

namespace phasor {
namespace {

// fl32(x^e) for float32 x and e: the power correctly rounded (from long double).
float PowF(float x, float e) {
  return static_cast<float>(std::pow(static_cast<long double>(x), static_cast<long double>(e)));
}

// The ladder's powers base^(2i/r) before the reciprocal (yarn's pos_freqs). [r/2]
std::vector<float> PowerLadder(int64_t r, double base) {
  const float b = static_cast<float>(base);
  const float dim = static_cast<float>(r);
  std::vector<float> pow_freq(static_cast<size_t>(r / 2));
  for (int64_t i = 0; i < r / 2; ++i) pow_freq[i] = PowF(b, static_cast<float>(2 * i) / dim);
  return pow_freq;
}

// HF _compute_llama3_parameters, on the float32 ladder inv.
void Llama3(const RopeOptions& o, std::vector<float>& inv) {
  const RopeScaling& sc = o.scaling;
  const double l0 = static_cast<double>(o.original_max_len());
  // Python floats, met by float32 tensors: rounded to float32 there.
  const float low_wavelen = static_cast<float>(l0 / sc.low_freq_factor);
  const float high_wavelen = static_cast<float>(l0 / sc.high_freq_factor);
  const float two_pi = static_cast<float>(2 * M_PI);
  const float factor = static_cast<float>(sc.factor);
  const float old_len = static_cast<float>(l0);
  const float lff = static_cast<float>(sc.low_freq_factor);
  const float span = static_cast<float>(sc.high_freq_factor - sc.low_freq_factor);
  for (float& f : inv) {
    const float wavelen = two_pi / f;
    const float llama = wavelen > low_wavelen ? f / factor : f;
    const float smooth = (old_len / wavelen - lff) / span;
    const float smoothed = (1.0f - smooth) * llama / factor + smooth * llama;
    const bool medium = !(wavelen < high_wavelen) && !(wavelen > low_wavelen);
    f = medium ? smoothed : llama;
  }
}

// HF _compute_yarn_parameters: the ramp between the ladder and it over factor.
std::vector<float> Yarn(const RopeOptions& o) {
  const RopeScaling& sc = o.scaling;
  const int64_t r = o.r();
  const double l0 = static_cast<double>(o.original_max_len());
  // find_correction_range in Python doubles (truncated), clamped as layers/rope.cc.
  const auto corr = [&](double b) {
    return static_cast<double>(r) * std::log(l0 / (2 * M_PI * b)) / (2 * std::log(o.base));
  };
  const double top = static_cast<double>(r - 1);
  const double low = std::clamp(std::floor(corr(sc.beta_fast)), 0.0, top);
  double high = std::clamp(std::ceil(corr(sc.beta_slow)), 0.0, top);
  if (low == high) high += 0.001;
  const float low_f = static_cast<float>(low), width = static_cast<float>(high - low);
  const float factor = static_cast<float>(sc.factor);
  const std::vector<float> pow_freq = PowerLadder(r, o.base);
  std::vector<float> inv(pow_freq.size());
  for (size_t i = 0; i < inv.size(); ++i) {
    const float extrapolation = 1.0f / pow_freq[i];
    const float interpolation = 1.0f / (factor * pow_freq[i]);
    const float ramp = std::clamp((static_cast<float>(i) - low_f) / width, 0.0f, 1.0f);
    const float extrapolation_factor = 1.0f - ramp;
    inv[i] = interpolation * (1.0f - extrapolation_factor) + extrapolation * extrapolation_factor;
  }
  return inv;
}

}  // namespace

std::vector<float> LibraryLadder(int64_t r, double base) {
  std::vector<float> inv = PowerLadder(r, base);
  for (float& f : inv) f = 1.0f / f;
  return inv;
}

std::vector<float> LibraryInverseFrequencies(const RopeOptions& o, int64_t seq_end) {
  const RopeScaling& sc = o.scaling;
  const int64_t r = o.r();
  const double s = sc.factor;
  const double ntk_power = static_cast<double>(r) / static_cast<double>(r - 2);
  std::vector<float> inv;
  switch (sc.type) {
    case RopeScalingType::kNone:
      return LibraryLadder(r, o.base);
    case RopeScalingType::kLinear:
      inv = LibraryLadder(r, o.base);
      for (float& f : inv) f /= static_cast<float>(s);
      return inv;
    case RopeScalingType::kNtk:
      return LibraryLadder(r, o.base * std::pow(s, ntk_power));
    case RopeScalingType::kGte:
      inv = LibraryLadder(r, o.base * s);
      for (float& f : inv) f /= static_cast<float>(std::pow(s, 2.0 / static_cast<double>(r)));
      return inv;
    case RopeScalingType::kDynamic: {
      const double l0 = static_cast<double>(o.original_max_len());
      const double l = std::max(l0, static_cast<double>(seq_end));
      return LibraryLadder(r, o.base * std::pow(s * l / l0 - (s - 1), ntk_power));
    }
    case RopeScalingType::kLlama3:
      inv = LibraryLadder(r, o.base);
      Llama3(o, inv);
      return inv;
    case RopeScalingType::kYarn:
      return Yarn(o);
  }
  return LibraryLadder(r, o.base);
}

}  // namespace phasor

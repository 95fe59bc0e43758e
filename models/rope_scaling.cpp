#include "models/rope_scaling.h"

#include <algorithm>
#include <cmath>

namespace rotor {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::vector<double> rope_frequencies(int64_t r, double base) {
  std::vector<double> f(static_cast<size_t>(r / 2));
  for (int64_t i = 0; i < r / 2; ++i) f[i] = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(r));
  return f;
}

// YaRN (arXiv 2309.00071): high-frequency pairs keep their frequency,
// low-frequency pairs are interpolated by the factor, with a linear ramp
// between the correction dims of beta_fast = 32 and beta_slow = 1 rotations.
void yarn(std::vector<double>& f, int64_t r, double base, double factor, int64_t original) {
  auto correction_dim = [&](double rotations) {
    return static_cast<double>(r) * std::log(static_cast<double>(original) / (rotations * 2 * kPi)) /
           (2 * std::log(base));
  };
  const double low = std::max(0.0, std::floor(correction_dim(32.0)));
  double high = std::min(static_cast<double>(r - 1), std::ceil(correction_dim(1.0)));
  if (high == low) high += 0.001;
  for (size_t i = 0; i < f.size(); ++i) {
    const double ramp = std::clamp((static_cast<double>(i) - low) / (high - low), 0.0, 1.0);
    const double extrapolate = 1.0 - ramp;
    f[i] = f[i] / factor * (1.0 - extrapolate) + f[i] * extrapolate;
  }
}

// Llama 3.1 (Hugging Face transformers, modeling_rope_utils._compute_llama3_parameters;
// Meta's llama-models apply_scaling): with wavelength w_i = 2 pi / theta_i and the
// training length L, pairs with w_i < L / high_freq_factor keep theta_i, pairs with
// w_i > L / low_freq_factor take theta_i / factor, and between the two
// theta_i ((1 - s) / factor + s), s = (L / w_i - low_freq_factor) / (high_freq_factor - low_freq_factor).
void llama3(std::vector<double>& f, const PositionConfig& c) {
  const double factor = c.number("scaling_factor"), low = c.number("low_freq_factor");
  const double high = c.number("high_freq_factor"), original = static_cast<double>(c.integer("original_max_len"));
  const double low_freq_wavelength = original / low, high_freq_wavelength = original / high;
  for (double& theta : f) {
    const double wavelength = 2 * kPi / theta;
    if (wavelength > low_freq_wavelength) {
      theta /= factor;
    } else if (!(wavelength < high_freq_wavelength)) {
      const double smooth = (original / wavelength - low) / (high - low);
      theta = (1 - smooth) * theta / factor + smooth * theta;
    }
  }
}

// Dynamic NTK (Hugging Face transformers, modeling_rope_utils._compute_dynamic_ntk_parameters;
// from the r/LocalLLaMA "Dynamically Scaled RoPE" post): for a forward reaching
// length n > L, base' = base (factor n / L - (factor - 1))^(r / (r - 2)). At or below L
// the base is not touched at all, so the frequencies are plain RoPE's bit for bit
// (vLLM #52665: engines that rescale from the cached maximum length instead do not).
double dynamic_ntk_base(int64_t r, const PositionConfig& c, int64_t length) {
  const double base = c.number("base");
  const int64_t original = c.integer("original_max_len");
  if (length <= original) return base;
  const double factor = c.number("scaling_factor");
  const double grown = factor * static_cast<double>(length) / static_cast<double>(original) - (factor - 1);
  return base * std::pow(grown, static_cast<double>(r) / static_cast<double>(r - 2));
}

// LongRoPE (Ding et al. 2024, arXiv 2402.13753, as Phi-3 ships it: Hugging Face transformers,
// modeling_rope_utils._compute_longrope_parameters): theta_i = base^(-2i/r) / lambda_i with the
// searched rescale factors lambda, the short ones while the forward's positions stay within the
// training length L and the long ones once they pass it (max position + 1 > L).
void longrope(std::vector<double>& f, const PositionConfig& c, int64_t length) {
  const std::vector<double> lambda =
      c.numbers(length > c.integer("original_max_len") ? "long_factors" : "short_factors");
  for (size_t i = 0; i < f.size(); ++i) f[i] /= lambda[i];
}

}  // namespace

std::vector<double> resonance_frequencies(std::vector<double> frequencies) {
  for (double& theta : frequencies)
    if (theta != 0.0) theta = 2 * kPi / std::round(2 * kPi / theta);
  return frequencies;
}

bool frequencies_follow_length(const PositionConfig& c) {
  const RopeScaling scaling = c.choice<RopeScaling>("scaling");
  return scaling == RopeScaling::dynamic_ntk || scaling == RopeScaling::longrope;
}

std::vector<double> scaled_inverse_frequencies(int64_t r, const PositionConfig& c, int64_t length) {
  const double base = c.number("base"), factor = c.number("scaling_factor");
  std::vector<double> f;
  switch (c.choice<RopeScaling>("scaling")) {
    case RopeScaling::ntk:  // NTK-aware: stretch the base so the lowest frequency interpolates by the factor
      f = rope_frequencies(r, base * std::pow(factor, static_cast<double>(r) / static_cast<double>(r - 2)));
      break;
    case RopeScaling::dynamic_ntk:
      f = rope_frequencies(r, dynamic_ntk_base(r, c, length));
      break;
    case RopeScaling::linear:  // position interpolation: positions / factor
      f = rope_frequencies(r, base);
      for (double& v : f) v /= factor;
      break;
    case RopeScaling::yarn:
      f = rope_frequencies(r, base);
      yarn(f, r, base, factor, c.integer("original_max_len"));
      break;
    case RopeScaling::llama3:
      f = rope_frequencies(r, base);
      llama3(f, c);
      break;
    case RopeScaling::longrope:
      f = rope_frequencies(r, base);
      longrope(f, c, length);
      break;
    case RopeScaling::none:
      f = rope_frequencies(r, base);
      break;
  }
  return c.flag("resonance") ? resonance_frequencies(std::move(f)) : f;
}

}  // namespace rotor

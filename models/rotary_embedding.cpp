#include "models/rotary_embedding.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace rotor {

std::vector<PositionOption> rotary_options() {
  using O = PositionOption;
  return {
      O::choice("layout", RotaryLayout::interleaved,
                "pairs (2i, 2i+1) as in the paper (interleaved) or (i, i+r/2) as in GPT-NeoX (half)"),
      O::number("base", 10000.0, "theta_i = base^(-2i/r)").above(1),
      O::number("fraction", 1.0, "share of each head's dims that rotate").above(0).at_most(1),
      O::flag("rotary_value", false, "also rotate the values"),
      O::choice("scaling", RopeScaling::none, "frequency scaling for lengths beyond training"),
      O::number("scaling_factor", 1.0, "with scaling: target / training length"),
      O::integer("original_max_len", 512,
                 "with scaling: training length (yarn's correction range; default data.max_len)")
          .train_length_default(),
  };
}

std::vector<PositionOption> rotary_options(const std::vector<std::string>& keys) {
  std::vector<PositionOption> chosen;
  for (const PositionOption& o : rotary_options())
    if (std::find(keys.begin(), keys.end(), o.key) != keys.end()) chosen.push_back(o);
  return chosen;
}

void require_even_head_dim(const ModelConfig& c) {
  if (c.head_dim() % 2 != 0)
    throw ModelConfigError("model.position.type: " + c.position.type +
                           " needs an even head dimension, but d_model/heads = " + std::to_string(c.head_dim()));
}

RotaryEmbedding::RotaryEmbedding(int64_t head_dim, const PositionConfig& config)
    : rotary_dims_(static_cast<int64_t>(std::llround(config.number("fraction") * static_cast<double>(head_dim)))),
      layout_(config.choice<RotaryLayout>("layout")),
      inv_freq_(inverse_frequencies(rotary_dims_, config)) {}

RotaryEmbedding::RotaryEmbedding(RotaryLayout layout, std::vector<double> inverse_frequencies)
    : rotary_dims_(2 * static_cast<int64_t>(inverse_frequencies.size())),
      layout_(layout),
      inv_freq_(std::move(inverse_frequencies)) {}

std::vector<double> RotaryEmbedding::inverse_frequencies(int64_t r, const PositionConfig& c) {
  const int64_t half = r / 2;
  const double given_base = c.number("base"), factor = c.number("scaling_factor");
  const RopeScaling scaling = c.choice<RopeScaling>("scaling");
  double base = given_base;
  if (scaling == RopeScaling::ntk)  // NTK-aware: stretch the base so the lowest frequency interpolates by the factor
    base *= std::pow(factor, static_cast<double>(r) / static_cast<double>(r - 2));
  std::vector<double> f(static_cast<size_t>(half));
  for (int64_t i = 0; i < half; ++i) f[i] = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(r));
  if (scaling == RopeScaling::linear)  // position interpolation: positions / factor
    for (double& v : f) v /= factor;
  if (scaling == RopeScaling::yarn) {
    // YaRN (arXiv 2309.00071): high-frequency pairs keep their frequency,
    // low-frequency pairs are interpolated by the factor, with a linear ramp
    // between the correction dims of beta_fast = 32 and beta_slow = 1 rotations.
    const double pi = 3.14159265358979323846;
    auto correction_dim = [&](double rotations) {
      return static_cast<double>(r) *
             std::log(static_cast<double>(c.integer("original_max_len")) / (rotations * 2 * pi)) /
             (2 * std::log(given_base));
    };
    const double low = std::max(0.0, std::floor(correction_dim(32.0)));
    double high = std::min(static_cast<double>(r - 1), std::ceil(correction_dim(1.0)));
    if (high == low) high += 0.001;
    for (int64_t i = 0; i < half; ++i) {
      const double ramp = std::clamp((static_cast<double>(i) - low) / (high - low), 0.0, 1.0);
      const double extrapolate = 1.0 - ramp;
      f[i] = f[i] / factor * (1.0 - extrapolate) + f[i] * extrapolate;
    }
  }
  return f;
}

double RotaryEmbedding::attention_factor(const PositionConfig& c) {
  const double factor = c.number("scaling_factor");
  if (c.choice<RopeScaling>("scaling") == RopeScaling::yarn && factor > 1) return 0.1 * std::log(factor) + 1.0;
  return 1.0;
}

RotaryTables RotaryEmbedding::tables_at(const std::vector<int64_t>& positions) const {
  const int64_t n = static_cast<int64_t>(positions.size()), half = rotary_dims_ / 2;
  RotaryTables t{Tensor::empty({n, half}, DType::F64), Tensor::empty({n, half}, DType::F64)};
  double* c = t.cos.data<double>();
  double* s = t.sin.data<double>();
  for (int64_t p = 0; p < n; ++p)
    for (int64_t i = 0; i < half; ++i) {
      const double angle = static_cast<double>(positions[p]) * inv_freq_[i];  // one product, never accumulated
      c[p * half + i] = std::cos(angle);
      s[p * half + i] = std::sin(angle);
    }
  return t;
}

RotaryTables RotaryEmbedding::tables(int64_t length) const {
  const std::lock_guard<std::mutex> lock(cache_mutex_);
  if (!cache_.cos.defined() || cache_.cos.size(0) < length) {
    std::vector<int64_t> positions(static_cast<size_t>(length));
    for (int64_t p = 0; p < length; ++p) positions[p] = p;
    cache_ = tables_at(positions);
  }
  const Shape rows{length, rotary_dims_ / 2};
  return {cache_.cos.view(0, rows), cache_.sin.view(0, rows)};
}

RotaryTables RotaryEmbedding::tables(int64_t length, const Positions& positions) const {
  return positions.contiguous() ? tables(length) : tables_at(positions.values);
}

Var RotaryEmbedding::apply(const Var& x, const Positions& positions) const {
  const RotaryTables t = tables(x.size(-2), positions);
  return rotary(x, t.cos, t.sin, layout_);
}

}  // namespace rotor

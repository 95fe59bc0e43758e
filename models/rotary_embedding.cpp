#include "models/rotary_embedding.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "models/rope_scaling.h"

namespace rotor {

std::vector<PositionOption> rotary_options() {
  using O = PositionOption;
  return {
      O::choice("layout", RotaryLayout::interleaved,
                "pairs (2i, 2i+1) as in the paper (interleaved) or (i, i+r/2) as in GPT-NeoX (half)"),
      O::number("base", 10000.0, "theta_i = base^(-2i/r)").above(1),
      O::number("fraction", 1.0, "share of each head's dims that rotate").above(0).at_most(1),
      O::flag("rotary_value", false, "also rotate the values"),
      O::choice("scaling", RopeScaling::none,
                "frequency scaling for lengths beyond training (dynamic_ntk: from each forward's length)"),
      O::number("scaling_factor", 1.0, "with scaling: target / training length"),
      training_length_option(),
      O::number("low_freq_factor", 1.0,
                "llama3: wavelengths above original_max_len / low_freq_factor are interpolated by scaling_factor")
          .above(0),
      O::number("high_freq_factor", 4.0,
                "llama3: wavelengths below original_max_len / high_freq_factor keep their frequency")
          .above(0),
      O::flag("resonance", false, "Resonance RoPE: round every wavelength 2 pi / theta_i to an integer"),
      O::numbers("short_factors", {},
                 "longrope: theta_i divided by these r/2 factors while positions stay within original_max_len"),
      O::numbers("long_factors", {}, "longrope: theta_i divided by these r/2 factors once positions pass it"),
  };
}

std::vector<PositionOption> rotary_options(const std::vector<std::string>& keys) {
  std::vector<PositionOption> chosen;
  for (const PositionOption& o : rotary_options())
    if (std::find(keys.begin(), keys.end(), o.key) != keys.end()) chosen.push_back(o);
  return chosen;
}

namespace {

// cos and sin of position * theta_i, one product each, never accumulated.
RotaryTables angle_tables(const std::vector<int64_t>& positions, const std::vector<double>& frequencies) {
  const int64_t n = static_cast<int64_t>(positions.size()), half = static_cast<int64_t>(frequencies.size());
  RotaryTables t{Tensor::empty({n, half}, DType::F64), Tensor::empty({n, half}, DType::F64)};
  double* c = t.cos.data<double>();
  double* s = t.sin.data<double>();
  for (int64_t p = 0; p < n; ++p)
    for (int64_t i = 0; i < half; ++i) {
      const double angle = static_cast<double>(positions[p]) * frequencies[i];
      c[p * half + i] = std::cos(angle);
      s[p * half + i] = std::sin(angle);
    }
  return t;
}

}  // namespace

void require_even_head_dim(const ModelConfig& c) {
  if (c.head_dim() % 2 != 0)
    throw ModelConfigError("model.position.type: " + c.position.type +
                           " needs an even head dimension, but d_model/heads = " + std::to_string(c.head_dim()));
}

RotaryEmbedding::RotaryEmbedding(int64_t head_dim, const PositionConfig& config)
    : rotary_dims_(static_cast<int64_t>(std::llround(config.number("fraction") * static_cast<double>(head_dim)))),
      layout_(config.choice<RotaryLayout>("layout")),
      inv_freq_(inverse_frequencies(rotary_dims_, config)) {
  if (frequencies_follow_length(config))
    frequencies_at_ = [r = rotary_dims_, config](int64_t length) {
      return scaled_inverse_frequencies(r, config, length);
    };
}

RotaryEmbedding::RotaryEmbedding(RotaryLayout layout, std::vector<double> inverse_frequencies)
    : rotary_dims_(2 * static_cast<int64_t>(inverse_frequencies.size())),
      layout_(layout),
      inv_freq_(std::move(inverse_frequencies)) {}

std::vector<double> RotaryEmbedding::inverse_frequencies(int64_t r, const PositionConfig& c) {
  return scaled_inverse_frequencies(r, c);
}

double RotaryEmbedding::attention_factor(const PositionConfig& c) {
  const double factor = c.number("scaling_factor");
  if (!(factor > 1)) return 1.0;
  switch (c.choice<RopeScaling>("scaling")) {
    case RopeScaling::yarn:  // YaRN eq. 22
      return 0.1 * std::log(factor) + 1.0;
    case RopeScaling::longrope:  // LongRoPE as Phi-3 (and _compute_longrope_parameters) set it
      return std::sqrt(1.0 + std::log(factor) / std::log(static_cast<double>(c.integer("original_max_len"))));
    default:
      return 1.0;
  }
}

RotaryTables RotaryEmbedding::tables_at(const std::vector<int64_t>& positions) const {
  return angle_tables(positions, inv_freq_);
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
  if (frequencies_at_) {
    const std::vector<double> f = frequencies_at_(positions.end(length));
    if (f != inv_freq_) return angle_tables(positions.list(length), f);  // beyond the training length
  }
  return positions.contiguous() ? tables(length) : tables_at(positions.values);
}

Var RotaryEmbedding::apply(const Var& x, const Positions& positions) const {
  const RotaryTables t = tables(x.size(-2), positions);
  return rotary(x, t.cos, t.sin, layout_);
}

}  // namespace rotor

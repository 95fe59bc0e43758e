// RoPE as a position encoding: q and k (and v with rotary_value) rotated per
// head after projection; YaRN's attention factor as a logit temperature.
#include <cmath>

#include "models/position_encoding.h"
#include "models/rotary_embedding.h"

namespace rotor {
namespace {

[[noreturn]] void fail(const std::string& key, const std::string& what) {
  throw ModelConfigError("model.position." + key + ": " + what);
}

class RopeEncoding : public PositionEncoding {
 public:
  explicit RopeEncoding(const ModelConfig& c)
      : rope_(c.head_dim(), c.position),
        rotary_value_(c.position.flag("rotary_value")),
        logit_scale_(std::pow(RotaryEmbedding::attention_factor(c.position), 2)) {}

  bool rotates() const override { return true; }
  Var rotate(const Var& x, Role, const Positions& positions) const override { return rope_.apply(x, positions); }
  const RotaryEmbedding* rotation() const override { return &rope_; }
  bool rotates_values() const override { return rotary_value_; }
  // YaRN (arXiv 2309.00071, eq. 22): softmax(q.k / (t sqrt(d))) with
  // sqrt(1/t) = 0.1 ln(s) + 1, whatever share of the dims rotates.
  double logit_scale() const override { return logit_scale_; }

 private:
  RotaryEmbedding rope_;
  bool rotary_value_;
  double logit_scale_;
};

// LongRoPE's factors: one finite factor > 0 per rotated pair under scaling longrope, none otherwise.
void validate_longrope_factors(const ModelConfig& c, bool longrope) {
  const size_t pairs = static_cast<size_t>(c.rotary_dims() / 2);
  for (const char* key : {"short_factors", "long_factors"}) {
    const std::vector<double> factors = c.position.numbers(key);
    if (!longrope) {
      if (!factors.empty()) fail(key, "applies to scaling: longrope only");
      continue;
    }
    if (factors.size() != pairs)
      fail(key, "longrope needs one factor per rotated pair: " + std::to_string(pairs) + " (half of the " +
                    std::to_string(c.rotary_dims()) + " rotated dims of a head), got " +
                    std::to_string(factors.size()));
    for (double f : factors)
      if (!(std::isfinite(f) && f > 0)) fail(key, "every factor must be a finite number > 0, got " + std::to_string(f));
  }
}

void validate_rope(const ModelConfig& c) {
  const PositionConfig& p = c.position;
  require_even_head_dim(c);
  const double fraction = p.number("fraction"), factor = p.number("scaling_factor");
  const double dims = fraction * static_cast<double>(c.head_dim());
  if (std::abs(dims - std::round(dims)) > 1e-9 || c.rotary_dims() % 2 != 0 || c.rotary_dims() == 0)
    fail("fraction", std::to_string(fraction) + " of head dim " + std::to_string(c.head_dim()) +
                         " is not an even whole number of dims");
  const RopeScaling scaling = p.choice<RopeScaling>("scaling");
  if (scaling != RopeScaling::none && !(factor >= 1))
    fail("scaling_factor", "must be >= 1, got " + std::to_string(factor));
  if ((scaling == RopeScaling::ntk || scaling == RopeScaling::dynamic_ntk) && c.rotary_dims() <= 2)
    fail("scaling", option_name(scaling) + std::string(" needs more than 2 rotated dims"));
  if ((scaling == RopeScaling::yarn || scaling == RopeScaling::longrope) && c.attention == AttentionKind::linear)
    fail("scaling", option_name(scaling) + std::string("'s attention factor is a softmax temperature; linear "
                                                       "attention has no softmax"));
  validate_longrope_factors(c, scaling == RopeScaling::longrope);
  const bool measures_training_length = scaling == RopeScaling::yarn || scaling == RopeScaling::llama3 ||
                                        scaling == RopeScaling::dynamic_ntk || scaling == RopeScaling::longrope;
  if (measures_training_length && p.integer("original_max_len") <= 0)
    fail("original_max_len", "must be a positive integer, got " + std::to_string(p.integer("original_max_len")));
  if (scaling == RopeScaling::llama3 && !(p.number("high_freq_factor") > p.number("low_freq_factor")))
    fail("high_freq_factor", "llama3 needs high_freq_factor > low_freq_factor, got " +
                                 std::to_string(p.number("high_freq_factor")) + " and " +
                                 std::to_string(p.number("low_freq_factor")));
}

}  // namespace

PositionEncodingSpec rope_encoding_spec() {
  PositionEncodingSpec s;
  s.name = "rope";
  s.validate = validate_rope;
  s.make = [](ParameterStore&, const ModelConfig& c) { return std::make_unique<RopeEncoding>(c); };
  s.options = with_randomized_positions(rotary_options());
  s.scales_lengths = true;
  s.rope_frequencies = true;
  return s;
}

}  // namespace rotor

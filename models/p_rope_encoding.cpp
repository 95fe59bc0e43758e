// p-RoPE (Barbero et al. 2024, "Round and Round We Go! What makes Rotary
// Positional Encodings useful?", arXiv 2410.06205): RoPE's schedule
// theta_i = base^(-2i/d) over the whole head (d = head_dim, i < d/2), but only
// the share p of the pairs with the highest frequencies rotates; the lowest-
// frequency pairs are left exactly as they are. The paper argues that models
// use RoPE's slowest pairs, which barely turn over a context, as "semantic"
// channels that still drift at long range; p-RoPE makes them position-free.
// p = 1 is RoPE, p = 0 is no position at all.
//
// Not rope's `fraction`: that rotates the first fraction*d dims with the
// schedule rescaled to them (theta_i = base^(-2i/r), r = fraction*d), so it
// keeps the whole range of frequencies, down to base^(-(r-2)/r), on fewer dims. Here a
// rotated pair turns at exactly RoPE's frequency for that pair, and the
// unrotated pairs are those RoPE turns slowest. The unrotated pairs get the
// frequency 0, whose cos/sin tables are exactly 1 and 0.
//
// `proportional` is the same row under Hugging Face's name (transformers'
// _compute_proportional_rope_parameters, Gemma 4: theta_i from the head dim,
// not the rotated dims, and the pairs past partial_rotary_factor left unrotated);
// its partial_rotary_factor is kept_frequency_fraction here.
#include <cmath>

#include "models/position_encoding.h"
#include "models/rotary_embedding.h"

namespace rotor {
namespace {

const char* const kKeptShare = "kept_frequency_fraction";

int64_t rotated_pairs(const ModelConfig& c) {
  return static_cast<int64_t>(std::llround(c.position.number(kKeptShare) * static_cast<double>(c.head_dim() / 2)));
}

// RoPE's frequencies over the whole head, the lowest (the last pairs) set to 0.
std::vector<double> kept_frequencies(const ModelConfig& c) {
  std::vector<double> f = RotaryEmbedding::inverse_frequencies(c.head_dim(), c.position);
  for (size_t i = static_cast<size_t>(rotated_pairs(c)); i < f.size(); ++i) f[i] = 0.0;
  return f;
}

class PRopeEncoding : public PositionEncoding {
 public:
  explicit PRopeEncoding(const ModelConfig& c)
      : rope_(c.position.choice<RotaryLayout>("layout"), kept_frequencies(c)) {}

  bool rotates() const override { return true; }
  Var rotate(const Var& x, Role, const Positions& positions) const override { return rope_.apply(x, positions); }
  const RotaryEmbedding* rotation() const override { return &rope_; }

 private:
  RotaryEmbedding rope_;
};

void validate_p_rope(const ModelConfig& c) {
  require_even_head_dim(c);
  const double p = c.position.number(kKeptShare), pairs = p * static_cast<double>(c.head_dim() / 2);
  if (std::abs(pairs - std::round(pairs)) > 1e-9)
    throw ModelConfigError("model.position." + std::string(kKeptShare) + ": " + std::to_string(p) + " of the " +
                           std::to_string(c.head_dim() / 2) + " frequency pairs of head dim " +
                           std::to_string(c.head_dim()) + " is not a whole number of pairs");
}

}  // namespace

PositionEncodingSpec p_rope_encoding_spec() {
  PositionEncodingSpec s;
  s.name = "p_rope";
  s.validate = validate_p_rope;
  s.make = [](ParameterStore&, const ModelConfig& c) { return std::make_unique<PRopeEncoding>(c); };
  s.options = rotary_options({"layout", "base"});
  s.options.push_back(
      PositionOption::number(kKeptShare, 0.75,
                             "p of p-RoPE: share of RoPE's frequency pairs (theta_i = base^(-2i/d) over "
                             "the whole head) that rotate, the highest; the rest stay unrotated")
          .at_least(0)
          .at_most(1));
  s.options = with_randomized_positions(s.options);
  return s;
}

PositionEncodingSpec proportional_encoding_spec() {
  PositionEncodingSpec s = p_rope_encoding_spec();
  s.name = "proportional";
  return s;
}

}  // namespace rotor

// xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer", arXiv
// 2212.10554; torchscale's XPOS): RoPE's rotation with a per-pair scale. Pair i
// of the query at position m is multiplied by zeta_i^(m/B), of the key at n by
// zeta_i^(-n/B), with zeta_i = (2i/d + gamma)/(1 + gamma) in (0, 1) (gamma 0.4,
// B = scale base 512 in the paper), so pair i's share of the score carries
// zeta_i^((m-n)/B): a decay with distance that is strongest in the fast pairs,
// and q_m.k_n still depends only on m - n. Scales and angles are computed in
// double.
//
// In an encoder, attention goes both ways and zeta^(m/B) for m up to N would
// overflow, and its inverse underflow, on long inputs. Positions are therefore
// measured from the middle of the sequence, m - floor(N/2) (torchscale also
// centres them): the common offset cancels in q.k, which stays a function of
// m - n, and the exponent is bounded by N/(2B). The consequence of using a
// one-sided formula both ways: for keys after the query (n > m) the factor
// zeta_i^((m-n)/B) exceeds 1, so they are amplified rather than decayed. Values
// are not scaled or rotated (rotary_value is not part of xPos). The tables for
// the last length seen are cached; they depend on N through the centre.
// Causal attention (ForwardContext::causal) reads only keys n <= m: there the
// scores are the paper's decoder scores (the centre cancels; the amplified
// keys are never read), so xPos needs no separate causal form.
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "models/position_encoding.h"
#include "models/rotary_embedding.h"

namespace rotor {
namespace {

std::vector<double> zetas(const ModelConfig& c) {
  const double gamma = c.position.number("xpos_gamma"), d = static_cast<double>(c.head_dim());
  std::vector<double> z(static_cast<size_t>(c.head_dim() / 2));
  for (size_t i = 0; i < z.size(); ++i) z[i] = (2.0 * static_cast<double>(i) / d + gamma) / (1.0 + gamma);
  return z;
}

class XposEncoding : public PositionEncoding {
 public:
  explicit XposEncoding(const ModelConfig& c)
      : rope_(c.head_dim(), c.position), zeta_(zetas(c)), scale_base_(c.position.number("xpos_scale_base")) {}

  bool rotates() const override { return true; }
  Var rotate(const Var& x, Role role, const Positions& positions) const override {
    const double sign = role == Role::key ? -1.0 : 1.0;
    if (!positions.contiguous()) {  // a fresh draw each forward: nothing to cache
      const RotaryTables t = scaled_tables(rope_.tables_at(positions.values), positions.values, sign, x.dtype());
      return rotary(x, t.cos, t.sin, rope_.layout());
    }
    const int64_t n = x.size(-2);
    RotaryTables t;
    {
      const std::lock_guard<std::mutex> lock(cache_mutex_);
      if (cached_length_ != n) {
        const std::vector<int64_t> slots = positions.list(n);
        const RotaryTables angles = rope_.tables(n);
        query_ = scaled_tables(angles, slots, +1.0, x.dtype());
        key_ = scaled_tables(angles, slots, -1.0, x.dtype());
        cached_length_ = n;
      }
      t = role == Role::key ? key_ : query_;
    }
    return rotary(x, t.cos, t.sin, rope_.layout());
  }
  const RotaryEmbedding* rotation() const override { return &rope_; }

 private:
  // cos and sin of p theta_i times zeta_i^(sign (p - centre) / B), the centre
  // halfway along the positions (floor(N/2) for 0..N-1).
  RotaryTables scaled_tables(const RotaryTables& angles, const std::vector<int64_t>& positions, double sign,
                             DType dtype) const {
    const int64_t n = static_cast<int64_t>(positions.size()), half = static_cast<int64_t>(zeta_.size());
    const int64_t centre = (positions.front() + positions.back() + 1) / 2;
    check_range(std::max(centre - positions.front(), positions.back() - centre), dtype);
    RotaryTables t{Tensor::empty({n, half}, DType::F64), Tensor::empty({n, half}, DType::F64)};
    const double* c = angles.cos.data<double>();
    const double* s = angles.sin.data<double>();
    double* sc = t.cos.data<double>();
    double* ss = t.sin.data<double>();
    for (int64_t p = 0; p < n; ++p) {
      const double exponent = sign * static_cast<double>(positions[p] - centre) / scale_base_;
      for (int64_t i = 0; i < half; ++i) {
        const double scale = std::pow(zeta_[i], exponent);
        sc[p * half + i] = c[p * half + i] * scale;
        ss[p * half + i] = s[p * half + i] * scale;
      }
    }
    return t;
  }

  // The largest scale, zeta_0^(-farthest/B) for the position farthest from
  // the centre, must leave room in the input's precision for the projections
  // it multiplies: at most the square root of the largest number (1.8e19 in
  // float32: N up to about 36,000 at B = 512).
  void check_range(int64_t farthest, DType dtype) const {
    const double largest_log = static_cast<double>(farthest) / scale_base_ * -std::log(zeta_[0]);
    const double limit = 0.5 * std::log(dtype == DType::F32 ? static_cast<double>(std::numeric_limits<float>::max())
                                                            : std::numeric_limits<double>::max());
    if (largest_log > limit)
      throw ModelConfigError("model.position.xpos_scale_base: positions " + std::to_string(farthest) +
                             " from the middle scale pairs by up to e^" + std::to_string(largest_log) + ", past " +
                             dtype_name(dtype) + "'s range; raise xpos_scale_base (now " + std::to_string(scale_base_) +
                             ")");
  }

  RotaryEmbedding rope_;
  std::vector<double> zeta_;
  double scale_base_;
  mutable std::mutex cache_mutex_;
  mutable int64_t cached_length_ = -1;
  mutable RotaryTables query_, key_;
};

void validate_xpos(const ModelConfig& c) {
  require_even_head_dim(c);
  if (c.attention == AttentionKind::linear)
    throw ModelConfigError(
        "model.attention: xpos scales softmax attention's queries and keys; it is not defined "
        "for linear attention");
}

}  // namespace

PositionEncodingSpec xpos_encoding_spec() {
  PositionEncodingSpec s;
  s.name = "xpos";
  s.validate = validate_xpos;
  s.make = [](ParameterStore&, const ModelConfig& c) { return std::make_unique<XposEncoding>(c); };
  s.options = rotary_options({"layout", "base"});
  s.options.push_back(PositionOption::number("xpos_scale_base", 512.0,
                                             "B: the query at m is scaled by zeta_i^(m/B), the key at n by "
                                             "zeta_i^(-n/B), m and n counted from the middle of the input")
                          .above(0));
  s.options.push_back(
      PositionOption::number("xpos_gamma", 0.4, "gamma in zeta_i = (2i/d + gamma)/(1 + gamma)").above(0));
  s.options = with_randomized_positions(s.options);
  return s;
}

}  // namespace rotor

// Properties of the two RoPE variants, through the encodings' own rotate hook
// on inputs of up to 1e5 + 1 positions. xpos: q_m . k_n depends only on m - n
// and equals RoPE's pair scores times zeta_i^((m-n)/B); its scales stay finite
// and a length past the precision's range is an error naming the key. p_rope:
// the low-frequency pairs are exactly the input, the others exactly RoPE's, and
// scores are invariant to a common shift.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "model_test_support.h"
#include "models/position_encoding.h"

using namespace rotor;
using namespace rotor::model_test;
using Catch::Matchers::Contains;
using Role = PositionEncoding::Role;

namespace {

constexpr int64_t kHeadDim = 16, kPairs = kHeadDim / 2;
constexpr int64_t kLongest = 100001;  // positions 0..1e5

ModelConfig rotary_config(const std::string& type, const std::string& layout) {
  ModelConfig c;
  c.d_model = 2 * kHeadDim;
  c.heads = 2;
  c.position.type = type;
  c.position.set("layout", option<RotaryLayout>(layout));
  c.validate();
  return c;
}

struct Encoded {
  ParameterStore store;
  std::unique_ptr<PositionEncoding> encoding;
  explicit Encoded(const ModelConfig& c) : encoding(make_position_encoding(store, c)) {}
};

// `v` ([kHeadDim]) at each of n positions, rotated as `role`: [n, kHeadDim] doubles.
std::vector<double> rotate_everywhere(const PositionEncoding& e, const std::vector<double>& v, int64_t n, Role role,
                                      DType dtype) {
  std::vector<double> rows;
  rows.reserve(static_cast<size_t>(n * kHeadDim));
  for (int64_t p = 0; p < n; ++p) rows.insert(rows.end(), v.begin(), v.end());
  return e.rotate(Var(Tensor::from_doubles({1, 1, n, kHeadDim}, dtype, rows)), role, Positions()).value().to_doubles();
}

// The dims of pair i in `layout`.
std::pair<int64_t, int64_t> pair_dims(const std::string& layout, int64_t i) {
  return layout == "half" ? std::pair{i, i + kPairs} : std::pair{2 * i, 2 * i + 1};
}

double pair_norm(const std::vector<double>& v, const std::string& layout, int64_t i) {
  const auto [a, b] = pair_dims(layout, i);
  return std::hypot(v[a], v[b]);
}

struct Shift {
  int64_t m, n, s;  // query m, key n, both shifted by s; all positions <= 1e5
};

std::vector<Shift> random_shifts(int64_t count, uint64_t seed) {
  const RandomKey key{seed, 7, 0};
  std::vector<Shift> shifts;
  for (int64_t t = 0; t < count; ++t) {
    const auto draw = [&](int64_t j) {
      return static_cast<int64_t>(key.below(static_cast<uint64_t>(3 * t + j), 50001));
    };
    shifts.push_back({draw(0), draw(1), draw(2)});
  }
  return shifts;
}

double row_dot(const std::vector<double>& a, int64_t i, const std::vector<double>& b, int64_t j) {
  return dot(row(a, kHeadDim, i), row(b, kHeadDim, j));
}

}  // namespace

TEST_CASE("xpos: q_m . k_n = q_{m+s} . k_{n+s} for positions up to 1e5, in float64", "[xpos]") {
  const std::string layout = GENERATE(std::string("interleaved"), std::string("half"));
  const ModelConfig c = rotary_config("xpos", layout);
  const Encoded e(c);
  const std::vector<double> q = random_normal(kHeadDim, 1), k = random_normal(kHeadDim, 2);
  const std::vector<double> rq = rotate_everywhere(*e.encoding, q, kLongest, Role::query, DType::F64);
  const std::vector<double> rk = rotate_everywhere(*e.encoding, k, kLongest, Role::key, DType::F64);
  CHECK(std::all_of(rq.begin(), rq.end(), [](double x) { return std::isfinite(x); }));
  CHECK(std::all_of(rk.begin(), rk.end(), [](double x) { return std::isfinite(x); }));

  // A score's natural scale is sum_i zeta_i^((m-n)/B) |q_i| |k_i|, which it
  // reaches when every pair aligns. Angles m theta_i <= 1e5 carry an absolute
  // error of ~1e5 * 1.1e-16 ~ 1e-11 rad, and the scales (exponents of up to
  // 1e5/2/512 * |ln 0.286| ~ 122) a relative one of ~122 * 1.1e-16 ~ 1e-14; a
  // pair's score errs by a few 1e-11 of its bound, the sum by under 1e-10:
  // 1e-9 leaves a margin of 10 (rope's test uses the same bound).
  const double gamma = 0.4, scale_base = 512.0;
  double worst = 0;
  for (const Shift& t : random_shifts(64, 3)) {
    double bound = 0;
    for (int64_t i = 0; i < kPairs; ++i) {
      const double zeta = (2.0 * static_cast<double>(i) / kHeadDim + gamma) / (1 + gamma);
      bound += std::pow(zeta, static_cast<double>(t.m - t.n) / scale_base) * pair_norm(q, layout, i) *
               pair_norm(k, layout, i);
    }
    const double a = row_dot(rq, t.m, rk, t.n), b = row_dot(rq, t.m + t.s, rk, t.n + t.s);
    worst = std::max(worst, std::abs(a - b) / bound);
  }
  CHECK(worst < 1e-9);
}

TEST_CASE("xpos: pair i of a score is rope's times zeta_i^((m-n)/B), so keys after the query are amplified", "[xpos]") {
  const std::string layout = GENERATE(std::string("interleaved"), std::string("half"));
  ModelConfig c = rotary_config("xpos", layout);
  const double scale_base = 3.0, gamma = 0.25;
  c.position.set("xpos_scale_base", scale_base);
  c.position.set("xpos_gamma", gamma);
  const Encoded e(c);
  const RotaryEmbedding rope(kHeadDim, rope_position(layout));
  const int64_t N = 9;
  const std::vector<double> q = random_normal(kHeadDim, 4), k = random_normal(kHeadDim, 5);
  const std::vector<double> xq = rotate_everywhere(*e.encoding, q, N, Role::query, DType::F64);
  const std::vector<double> xk = rotate_everywhere(*e.encoding, k, N, Role::key, DType::F64);
  for (int64_t m = 0; m < N; ++m)
    for (int64_t n = 0; n < N; ++n) {
      const std::vector<double> rq = rotate_rows(rope, q, kHeadDim, {m}, DType::F64);
      const std::vector<double> rk = rotate_rows(rope, k, kHeadDim, {n}, DType::F64);
      double expected = 0;
      for (int64_t i = 0; i < kPairs; ++i) {
        const auto [a, b] = pair_dims(layout, i);
        const double zeta = (2.0 * static_cast<double>(i) / kHeadDim + gamma) / (1 + gamma);
        expected += std::pow(zeta, static_cast<double>(m - n) / scale_base) * (rq[a] * rk[a] + rq[b] * rk[b]);
      }
      CAPTURE(m, n);
      CHECK(row_dot(xq, m, xk, n) == Approx(expected).margin(1e-12));
    }
  // The encoding keeps its hands off the values.
  CHECK_FALSE(e.encoding->rotates_values());
}

TEST_CASE("xpos: an input whose scales would leave the precision's range is an error naming the key", "[xpos]") {
  const Encoded e(rotary_config("xpos", "interleaved"));
  const std::vector<double> v = random_normal(kHeadDim, 6);
  // float32: zeta_0^(-N/2/512) <= sqrt(FLT_MAX) ~ 1.8e19 up to N ~ 36,000.
  const std::vector<double> ok = rotate_everywhere(*e.encoding, v, 30000, Role::key, DType::F32);
  CHECK(std::all_of(ok.begin(), ok.end(), [](double x) { return std::isfinite(x); }));
  CHECK_THROWS_WITH(rotate_everywhere(*e.encoding, v, kLongest, Role::key, DType::F32),
                    Contains("model.position.xpos_scale_base") && Contains("float32"));
}

TEST_CASE("p_rope: low-frequency pairs are the input, the others rope's, at positions up to 1e5", "[p_rope]") {
  const std::string layout = GENERATE(std::string("interleaved"), std::string("half"));
  ModelConfig c = rotary_config("p_rope", layout);
  c.position.set("kept_frequency_fraction", 0.625);  // 5 of 8 pairs rotate, 3 do not
  const Encoded e(c);
  const RotaryEmbedding rope(kHeadDim, rope_position(layout));
  const std::vector<double> x = random_normal(kLongest * kHeadDim, 7);
  const Var input(Tensor::from_doubles({1, 1, kLongest, kHeadDim}, DType::F64, x));
  const std::vector<double> y = e.encoding->rotate(input, Role::query, Positions()).value().to_doubles();
  const std::vector<double> r = rope.apply(input).value().to_doubles();
  int64_t unrotated_changed = 0, rotated_off = 0;
  for (int64_t p = 0; p < kLongest; ++p)
    for (int64_t i = 0; i < kPairs; ++i) {
      const auto [a, b] = pair_dims(layout, i);
      const size_t ia = static_cast<size_t>(p * kHeadDim + a), ib = static_cast<size_t>(p * kHeadDim + b);
      if (i >= 5)
        unrotated_changed += y[ia] != x[ia] || y[ib] != x[ib];
      else
        rotated_off += std::abs(y[ia] - r[ia]) > 1e-12 || std::abs(y[ib] - r[ib]) > 1e-12;
    }
  CHECK(unrotated_changed == 0);
  CHECK(rotated_off == 0);
  CHECK(y != x);
}

TEST_CASE("p_rope: q_m . k_n = q_{m+s} . k_{n+s} for positions up to 1e5", "[p_rope]") {
  const DType dtype = GENERATE(DType::F32, DType::F64);
  const std::string layout = GENERATE(std::string("interleaved"), std::string("half"));
  const Encoded e(rotary_config("p_rope", layout));  // the default p = 0.75: 6 of 8 pairs rotate
  const std::vector<double> q = random_normal(kHeadDim, 8), k = random_normal(kHeadDim, 9);
  const std::vector<double> rq = rotate_everywhere(*e.encoding, q, kLongest, Role::query, dtype);
  const std::vector<double> rk = rotate_everywhere(*e.encoding, k, kLongest, Role::key, dtype);
  double worst = 0;
  for (const Shift& t : random_shifts(64, 10))
    worst = std::max(worst,
                     std::abs(row_dot(rq, t.m, rk, t.n) - row_dot(rq, t.m + t.s, rk, t.n + t.s)) / (norm(q) * norm(k)));
  // As rope's test: angles in double, tables rounded once to the input's precision.
  CHECK(worst < (dtype == DType::F64 ? 1e-9 : 1e-5));
}

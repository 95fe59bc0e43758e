// RoPE properties of RotaryEmbedding + the engine's rotary op, in float32 and
// float64: relative-position invariance up to 1e5 positions (and why the
// angles must be computed in double), norm preservation, partial rotary,
// cached tables, and the backward pass being the rotation by -angle.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

#include "model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

// Relative error of a score, measured against |q||k| (a score's natural scale).
double tolerance(DType dtype) { return dtype == DType::F64 ? 1e-9 : 1e-5; }

struct InvarianceCase {
  std::vector<double> q, k;  // [T, d] each
  std::vector<int64_t> m, n, s;
};

InvarianceCase make_case(int64_t trials, int64_t d, uint64_t seed) {
  InvarianceCase c{random_normal(trials * d, seed, 1), random_normal(trials * d, seed, 2), {}, {}, {}};
  const RandomKey key{seed, 3, 0};
  for (int64_t t = 0; t < trials; ++t) {
    c.m.push_back(static_cast<int64_t>(key.below(3 * t, 100001)));
    c.n.push_back(static_cast<int64_t>(key.below(3 * t + 1, 100001)));
    c.s.push_back(static_cast<int64_t>(key.below(3 * t + 2, 100001)));
  }
  return c;
}

// Max over trials of |<R_m q, R_n k> - <R_{m+s} q, R_{n+s} k>| / (|q||k|),
// with angle tables from `tables(positions)`.
template <class TablesFn>
double max_shift_error(const InvarianceCase& c, int64_t d, RotaryLayout layout, DType dtype, TablesFn tables) {
  const int64_t T = static_cast<int64_t>(c.m.size());
  std::vector<int64_t> pq, pk;  // first T rows unshifted, next T shifted
  for (int64_t t = 0; t < T; ++t) pq.push_back(c.m[t]), pk.push_back(c.n[t]);
  for (int64_t t = 0; t < T; ++t) pq.push_back(c.m[t] + c.s[t]), pk.push_back(c.n[t] + c.s[t]);
  std::vector<double> q2 = c.q, k2 = c.k;
  q2.insert(q2.end(), c.q.begin(), c.q.end());
  k2.insert(k2.end(), c.k.begin(), c.k.end());
  const std::vector<double> rq = rotate_rows(q2, d, tables(pq), layout, dtype);
  const std::vector<double> rk = rotate_rows(k2, d, tables(pk), layout, dtype);
  double worst = 0;
  for (int64_t t = 0; t < T; ++t) {
    const double scale = norm(row(c.q, d, t)) * norm(row(c.k, d, t));
    const double a = dot(row(rq, d, t), row(rk, d, t));
    const double b = dot(row(rq, d, T + t), row(rk, d, T + t));
    worst = std::max(worst, std::abs(a - b) / scale);
  }
  return worst;
}

// What a float-angle implementation would compute: m * theta_i in float.
RotaryTables float_angle_tables(const std::vector<double>& inv_freq, const std::vector<int64_t>& positions) {
  const int64_t n = static_cast<int64_t>(positions.size()), half = static_cast<int64_t>(inv_freq.size());
  std::vector<double> c(static_cast<size_t>(n * half)), s(c.size());
  for (int64_t p = 0; p < n; ++p)
    for (int64_t i = 0; i < half; ++i) {
      const float angle = static_cast<float>(positions[p]) * static_cast<float>(inv_freq[i]);
      c[p * half + i] = std::cos(static_cast<double>(angle));
      s[p * half + i] = std::sin(static_cast<double>(angle));
    }
  return {Tensor::from_doubles({n, half}, DType::F64, c), Tensor::from_doubles({n, half}, DType::F64, s)};
}

}  // namespace

TEST_CASE("rope: <R_m q, R_n k> = <R_{m+s} q, R_{n+s} k> for positions up to 1e5", "[rope]") {
  const DType dtype = GENERATE(DType::F32, DType::F64);
  const std::string layout = GENERATE(std::string("interleaved"), std::string("half"));
  const int64_t d = GENERATE(8, 32, 128);
  const RotaryEmbedding rope(d, rope_position(layout));
  const InvarianceCase c = make_case(64, d, static_cast<uint64_t>(d));
  const double err =
      max_shift_error(c, d, rope.layout(), dtype, [&](const std::vector<int64_t>& p) { return rope.tables_at(p); });
  INFO(dtype_name(dtype) << " " << layout << " d=" << d << " max relative error " << err);
  CHECK(err < tolerance(dtype));
}

TEST_CASE("rope: <R_m q, R_n k> = <q, R_{n-m} k>", "[rope]") {
  const DType dtype = GENERATE(DType::F32, DType::F64);
  const int64_t d = 64, T = 32;
  const RotaryEmbedding rope(d, rope_position("half"));
  const InvarianceCase c = make_case(T, d, 11);
  const std::vector<double> rq = rotate_rows(rope, c.q, d, c.m, dtype);
  const std::vector<double> rk = rotate_rows(rope, c.k, d, c.n, dtype);
  std::vector<int64_t> rel;
  for (int64_t t = 0; t < T; ++t) rel.push_back(c.n[t] - c.m[t]);  // negative ones too
  const std::vector<double> rk_rel = rotate_rows(rope, c.k, d, rel, dtype);
  for (int64_t t = 0; t < T; ++t) {
    const double scale = norm(row(c.q, d, t)) * norm(row(c.k, d, t));
    CHECK(std::abs(dot(row(rq, d, t), row(rk, d, t)) - dot(row(c.q, d, t), row(rk_rel, d, t))) / scale <
          tolerance(dtype));
  }
}

TEST_CASE("rope: double-precision angles are what keep the relative property at 1e5 positions", "[rope]") {
  // Same data, same float64 rotation; only the angle computation differs.
  const int64_t d = 64;
  const RotaryEmbedding rope(d, rope_position("interleaved"));
  auto shift_errors = [&](const InvarianceCase& c) {
    const double with_double = max_shift_error(c, d, rope.layout(), DType::F64,
                                               [&](const std::vector<int64_t>& p) { return rope.tables_at(p); });
    const double with_float = max_shift_error(c, d, rope.layout(), DType::F64, [&](const std::vector<int64_t>& p) {
      return float_angle_tables(rope.frequencies(), p);
    });
    return std::make_pair(with_double, with_float);
  };
  // Random q, k: the error of float angles is already 5x the float32 tolerance.
  const auto [all_double, all_float] = shift_errors(make_case(64, d, 5));
  INFO("random q, k -- double angles: " << all_double << ", float angles: " << all_float);
  CHECK(all_double < 1e-9);
  CHECK(all_float > 2e-4);
  CHECK(all_float > 1e6 * all_double);
  // q, k in the plane of pair 1 (theta = 0.75, angles ~1e5 rad where the float
  // spacing is 2^-7): a score of norm 1 is off by several 1e-3.
  InvarianceCase c = make_case(64, d, 6);
  for (size_t i = 0; i < c.q.size(); ++i)
    if (i % d != 2 && i % d != 3) c.q[i] = c.k[i] = 0.0;
  const auto [pair_double, pair_float] = shift_errors(c);
  INFO("pair 1 only -- double angles: " << pair_double << ", float angles: " << pair_float);
  CHECK(pair_double < 1e-9);
  CHECK(pair_float > 2e-3);
}

TEST_CASE("rope: rotation preserves the norm", "[rope]") {
  const DType dtype = GENERATE(DType::F32, DType::F64);
  const std::string layout = GENERATE(std::string("interleaved"), std::string("half"));
  const int64_t d = 128, T = 16;
  const RotaryEmbedding rope(d, rope_position(layout));
  const InvarianceCase c = make_case(T, d, 21);
  const std::vector<double> rq = rotate_rows(rope, c.q, d, c.m, dtype);
  for (int64_t t = 0; t < T; ++t)
    CHECK(std::abs(norm(row(rq, d, t)) - norm(row(c.q, d, t))) / norm(row(c.q, d, t)) <
          (dtype == DType::F64 ? 1e-14 : 1e-6));
}

TEST_CASE("rope: partial rotary (fraction 0.5) leaves dims >= r unchanged", "[rope]") {
  const DType dtype = GENERATE(DType::F32, DType::F64);
  const std::string layout = GENERATE(std::string("interleaved"), std::string("half"));
  const int64_t d = 32, T = 8;
  const RotaryEmbedding rope(d, rope_position(layout, 0.5));
  REQUIRE(rope.rotary_dims() == 16);
  REQUIRE(rope.frequencies().size() == 8);
  // theta_i = base^(-2i/r) with r the rotated dims, not the head dim
  CHECK(rope.frequencies()[1] == Approx(std::pow(10000.0, -2.0 / 16)).epsilon(1e-15));
  const InvarianceCase c = make_case(T, d, 31);
  const std::vector<double> x = Tensor::from_doubles({T * d}, dtype, c.q).to_doubles();  // q as stored in dtype
  const std::vector<double> rq = rotate_rows(rope, c.q, d, c.m, dtype);
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t j = 16; j < d; ++j) CHECK(rq[t * d + j] == x[t * d + j]);
    const std::vector<double> head(x.begin() + t * d, x.begin() + t * d + 16);
    const std::vector<double> rhead(rq.begin() + t * d, rq.begin() + t * d + 16);
    CHECK(norm(rhead) == Approx(norm(head)).epsilon(1e-6));
    CHECK(std::abs(rhead[0] - head[0]) + std::abs(rhead[1] - head[1]) > 1e-3);  // the rotated part did move
  }
}

TEST_CASE("rope: position 0 is the identity and tables are cos/sin of m*theta_i", "[rope]") {
  RotaryEmbedding rope(16, rope_position());
  const RotaryTables t = rope.tables_at({0, 1, 77777});
  const std::vector<double> c = t.cos.to_doubles(), s = t.sin.to_doubles();
  for (int i = 0; i < 8; ++i) {
    CHECK(c[i] == 1.0);
    CHECK(s[i] == 0.0);
    const double theta = std::pow(10000.0, -2.0 * i / 16);
    CHECK(c[8 + i] == Approx(std::cos(theta)).margin(1e-15));
    CHECK(s[16 + i] == Approx(std::sin(77777.0 * theta)).margin(1e-11));
  }
}

TEST_CASE("rope: tables(N) are views of one cached table and equal tables_at(0..N-1)", "[rope]") {
  RotaryEmbedding rope(32, rope_position("half"));
  const int64_t N = 300;
  std::vector<int64_t> positions(N);
  for (int64_t p = 0; p < N; ++p) positions[p] = p;
  const RotaryTables direct = rope.tables_at(positions);
  const RotaryTables cached = rope.tables(N);
  CHECK(cached.cos.shape() == Shape{N, 16});
  CHECK(cached.cos.dtype() == DType::F64);
  CHECK(cached.cos.to_doubles() == direct.cos.to_doubles());
  CHECK(cached.sin.to_doubles() == direct.sin.to_doubles());
  CHECK(rope.tables(N).cos.shares_storage(cached.cos));  // the same table, not recomputed
  CHECK(rope.tables(7).cos.to_doubles() == rope.tables_at({0, 1, 2, 3, 4, 5, 6}).cos.to_doubles());
  CHECK(rope.tables(7).sin.shares_storage(cached.sin));  // a shorter length is a view of it
  CHECK(rope.tables(N).cos.shares_storage(cached.cos));  // and does not evict it
}

TEST_CASE("rope: apply() rotates the last two dims of [B, H, N, dh] by position", "[rope]") {
  RotaryEmbedding rope(8, rope_position("half"));
  const int64_t B = 2, H = 3, N = 5, dh = 8;
  const std::vector<double> x = random_normal(B * H * N * dh, 41);
  const Var y = rope.apply(Var(Tensor::from_doubles({B, H, N, dh}, DType::F64, x)));
  std::vector<int64_t> positions;
  for (int64_t g = 0; g < B * H; ++g)
    for (int64_t n = 0; n < N; ++n) positions.push_back(n);
  CHECK(y.value().to_doubles() == rotate_rows(rope, x, dh, positions, DType::F64));
}

TEST_CASE("rope: the gradient of rotary is the rotation by the negative angle", "[rope]") {
  const DType dtype = GENERATE(DType::F32, DType::F64);
  const RotaryLayout layout = GENERATE(RotaryLayout::interleaved, RotaryLayout::half);
  const int64_t d = 16, T = 6;
  PositionConfig p = rope_position(layout == RotaryLayout::half ? "half" : "interleaved", 0.75);
  const RotaryEmbedding rope(d, p);
  const std::vector<int64_t> pos{0, 1, 5, 999, 54321, 100000};
  std::vector<int64_t> neg;
  for (int64_t m : pos) neg.push_back(-m);
  const RotaryTables tables = rope.tables_at(pos);
  // Upstream gradients: unit vectors e_(t mod d) plus a random one in the last row.
  std::vector<double> g(static_cast<size_t>(T * d), 0.0);
  for (int64_t t = 0; t < T - 1; ++t) g[t * d + (3 * t) % d] = 1.0;
  const std::vector<double> r = random_normal(d, 51);
  std::copy(r.begin(), r.end(), g.begin() + (T - 1) * d);

  Var x(Tensor::from_doubles({T, d}, dtype, random_normal(T * d, 52)), /*requires_grad=*/true);
  const Var y = rotary(x, tables.cos, tables.sin, layout);
  backward(sum_all(mul(y, Var(Tensor::from_doubles({T, d}, dtype, g)))));
  const std::vector<double> grad = x.grad().to_doubles();
  const std::vector<double> expected = rotate_rows(rope, g, d, neg, dtype);  // R_{-m} g
  for (size_t i = 0; i < grad.size(); ++i)
    CHECK(grad[i] == Approx(expected[i]).margin(dtype == DType::F64 ? 1e-15 : 1e-6));
  // and the rotation by -angle undoes the rotation: R_{-m} R_m x = x
  const std::vector<double> back = rotate_rows(rope, y.value().to_doubles(), d, neg, dtype);
  const std::vector<double> x0 = x.value().to_doubles();
  for (size_t i = 0; i < x0.size(); ++i) CHECK(back[i] == Approx(x0[i]).margin(dtype == DType::F64 ? 1e-13 : 1e-5));
}

TEST_CASE("rope: rotary_value also rotates v (identity at position 0 only)", "[rope][model]") {
  ModelConfig c = tiny_config("rope-interleaved");
  c.init_std = 0.2;
  ModelConfig cv = c;
  cv.position.set("rotary_value", true);
  EncoderClassifier plain(c, DType::F64), rotated(cv, DType::F64);
  plain.initialize(2);
  rotated.initialize(2);  // same names, same seed: same weights
  REQUIRE(plain.parameters().values().to_doubles() == rotated.parameters().values().to_doubles());
  ToyBatch one;  // a single token sits at position 0, where every rotation is the identity
  one.batch = 1;
  one.seq_len = 1;
  one.tokens = {5};
  one.lengths = {1};
  CHECK(eval_logits(plain, one) == eval_logits(rotated, one));
  const ToyBatch b = make_toy_batch(ToyTask::contains, 4, 9, c.vocab_size, 3, 0);
  const std::vector<double> a = eval_logits(plain, b), r = eval_logits(rotated, b);
  double diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff = std::max(diff, std::abs(a[i] - r[i]));
  CHECK(diff > 1e-4);
}

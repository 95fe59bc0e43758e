// The fused attention in bf16 (Precision::bf16: tile-product inputs rounded to
// bfloat16, fp32 accumulation, softmax and log-sum-exp in fp32) against the
// same kernel in fp32 on the same inputs: the output and every gradient,
// causal and not, with the offset bias, a pair bias, padding and dropout,
// within a bound derived from bf16's unit roundoff; closer to a double
// reference on the rounded inputs than to one on the originals; the same bits
// on one and two threads; and RoPE's relative property at positions up to 1e5.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "attention_cases.h"
#include "engine/bf16.h"
#include "engine/ops.h"
#include "engine/precision.h"
#include "optim_fixtures.h"

using namespace rotor;
using test::Case;

namespace {

constexpr double kUnit = 0x1p-9;  // bf16 unit roundoff: 8 significant bits, round to nearest

Tensor bf16_rounded(const Tensor& x) {
  std::vector<double> v = x.to_doubles();
  for (double& e : v) e = round_to_bf16(static_cast<float>(e));
  return Tensor::from_doubles(x.shape(), x.dtype(), v);
}

// Output, then the gradients of q, k, v (and bias, and the pair bias's w, a,
// b) of loss = sum(out * R), in `dtype` under `precision`; `round_inputs`
// rounds q, k, v and R to bf16 first (R is the backward's dO).
std::vector<Tensor> run(const Case& c, DType dtype, Precision precision, bool round_inputs = false) {
  const PrecisionScope scope(precision);
  const Shape shape{c.B, c.H, c.N, c.dh};
  auto input = [&](const Shape& s, uint64_t seed) {
    const Tensor x = test::randn(s, seed).to(DType::F32);
    return (round_inputs ? bf16_rounded(x) : x).to(dtype);
  };
  std::vector<Var> in;
  for (uint64_t s = 0; s < 3; ++s) in.emplace_back(input(shape, 100 + s), true);
  if (c.bias) in.emplace_back(test::randn({c.H, 2 * c.N - 1}, 200).to(dtype), true);
  std::shared_ptr<const PairBias> pair;
  if (c.pair) {
    const size_t first = in.size();
    in.emplace_back(test::randn({c.H}, 210).to(dtype), true);
    in.emplace_back(Tensor::from_doubles({1}, dtype, {0.9}), true);
    in.emplace_back(Tensor::from_doubles({1}, dtype, {0.4}), true);
    pair = std::make_shared<test::WavePairBias>(in[first], in[first + 1], in[first + 2]);
  }
  const Var out = attention(in[0], in[1], in[2], test::options_for(c, c.bias ? in[3] : Var(), pair));
  backward(sum_all(out * Var(input(shape, 300))));
  std::vector<Tensor> result{out.value()};
  for (const Var& x : in) result.push_back(x.grad());
  return result;
}

double max_abs(const Tensor& x) {
  double m = 0.0;
  for (double e : x.to_doubles()) m = std::max(m, std::abs(e));
  return m;
}

double max_abs_difference(const Tensor& a, const Tensor& b) {
  const std::vector<double> x = a.to_doubles(), y = b.to_doubles();
  double m = 0.0;
  for (size_t i = 0; i < x.size(); ++i) m = std::isnan(x[i] - y[i]) ? INFINITY : std::max(m, std::abs(x[i] - y[i]));
  return m;
}

double rms_difference(const Tensor& a, const Tensor& b) {
  const std::vector<double> x = a.to_doubles(), y = b.to_doubles();
  double s = 0.0;
  for (size_t i = 0; i < x.size(); ++i) s += (x[i] - y[i]) * (x[i] - y[i]);
  return std::sqrt(s / static_cast<double>(x.size()));
}

// The largest |scale q_i . k_j| the rows' norms allow (Cauchy-Schwarz).
double score_bound(const Case& c) {
  const Shape shape{c.B, c.H, c.N, c.dh};
  auto largest_row_norm = [&](uint64_t seed) {
    const std::vector<double> x = test::randn(shape, seed).to_doubles();
    double m = 0.0;
    for (size_t r = 0; r < x.size() / static_cast<size_t>(c.dh); ++r) {
      double s = 0.0;
      for (int64_t e = 0; e < c.dh; ++e) s += x[r * c.dh + e] * x[r * c.dh + e];
      m = std::max(m, std::sqrt(s));
    }
    return m;
  };
  return largest_row_norm(100) * largest_row_norm(101) / std::sqrt(static_cast<double>(c.dh));
}

std::vector<Case> bf16_cases() {
  std::vector<Case> cases;
  for (bool causal : {false, true}) {
    cases.push_back({2, 2, 130, 32, {130, 71}, true, 0.0, true, causal});  // offset and pair bias, padding, 3 tiles
    cases.push_back({1, 3, 65, 17, {}, false, 0.2, false, causal});        // odd head dim, dropout
    cases.push_back({2, 2, 7, 64, {7, 4}, true, 0.1, true, causal});       // one partial tile, everything on
  }
  return cases;
}

}  // namespace

TEST_CASE("bf16 fused attention is within the bf16 bound of fp32, forward and every gradient") {
  // First order in u = 2^-9: each rounded input of a tile product carries
  // relative error <= u, so a score moves by <= 2 u sigma (sigma: the largest
  // |scale q.k|, score_bound), softmax at most doubles that in each weight, and
  // each further rounded product (P V; dO V^T, then dS K, dS^T Q, P^T dO) adds
  // 2 u of its operands' magnitude. A gradient passes through at most three
  // such steps: |error| <= 8 u (1 + 2 sigma) / (1 - p_drop) times the largest
  // magnitude of the tensor itself (measured: 1 to 3 u). The bias and pair-bias
  // gradients are sums of dS over up to B N^2 positions that largely cancel
  // (a result far below its terms), so they are measured as the fused-vs-
  // composed checks measure everything: |error| / max(1, |value|).
  for (const Case& c : bf16_cases()) {
    INFO(test::describe(c));
    const auto fp32 = run(c, DType::F32, Precision::fp32), bf16 = run(c, DType::F32, Precision::bf16);
    const double bound = 8 * kUnit * (1 + 2 * score_bound(c)) / (1 - c.dropout);
    for (size_t i = 0; i < fp32.size(); ++i) {
      INFO("tensor " << i << " (output, dq, dk, dv, then dbias and the pair bias's dw, da, db where present)");
      const double error = max_abs_difference(bf16[i], fp32[i]);
      if (i < 4)
        CHECK(error <= bound * max_abs(fp32[i]));
      else
        CHECK(test::max_relative_error(bf16[i], fp32[i]) <= bound);
      if (i == 0) CHECK(error > kUnit / 64 * max_abs(fp32[i]));  // the output really went through bf16
    }
  }
}

TEST_CASE("bf16 fused attention is closer to double on the rounded inputs than on the originals") {
  // The rounding of q, k, v and dO explains most of the difference; what is
  // left (P and dS rounded, fp32 sums) is smaller.
  for (const Case& c : bf16_cases()) {
    if (c.dropout > 0.0) continue;
    INFO(test::describe(c));
    const auto bf16 = run(c, DType::F32, Precision::bf16);
    const auto rounded = run(c, DType::F64, Precision::fp32, true), exact = run(c, DType::F64, Precision::fp32);
    for (size_t i = 0; i < 4; ++i) {  // output, dq, dk, dv
      INFO("tensor " << i);
      CHECK(rms_difference(bf16[i], rounded[i]) < 0.75 * rms_difference(bf16[i], exact[i]));
    }
  }
}

TEST_CASE("bf16 fused attention gives the same bits on one and two threads") {
  for (bool causal : {false, true}) {
    const Case c{2, 3, 150, 24, {150, 77}, true, 0.1, true, causal};
    std::vector<Tensor> one, two;
    {
      test::ThreadCountGuard threads(1);
      one = run(c, DType::F32, Precision::bf16);
    }
    {
      test::ThreadCountGuard threads(2);
      two = run(c, DType::F32, Precision::bf16);
    }
    for (size_t i = 0; i < one.size(); ++i) {
      INFO("causal " << causal << " output " << i);
      CHECK(test::same_bits(one[i], two[i]));
    }
  }
}

TEST_CASE("double attention ignores the bf16 setting") {
  const Case c{1, 2, 70, 8, {}, true, 0.1, true, true};
  const auto fp32 = run(c, DType::F64, Precision::fp32), bf16 = run(c, DType::F64, Precision::bf16);
  for (size_t i = 0; i < fp32.size(); ++i) CHECK(test::same_bits(fp32[i], bf16[i]));
}

namespace {

// RoPE (half layout, base 10000) of the rows of x [1, 1, N, dh] at positions
// first .. first + N - 1: angles in double, the rotation applied in fp32, as
// models/rotary_embedding.cpp does.
Var rope_at(const Tensor& x, int64_t first) {
  const int64_t N = x.size(2), half = x.size(3) / 2;
  Tensor cos = Tensor::empty({N, half}, DType::F64), sin = Tensor::empty({N, half}, DType::F64);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t i = 0; i < half; ++i) {
      const double angle = static_cast<double>(first + n) * std::pow(10000.0, -2.0 * i / (2.0 * half));
      cos.data<double>()[n * half + i] = std::cos(angle);
      sin.data<double>()[n * half + i] = std::sin(angle);
    }
  return rotary(Var(x), cos, sin, RotaryLayout::half);
}

}  // namespace

TEST_CASE("RoPE's relative property holds in bf16 attention at positions up to 1e5") {
  // The same q, k, v rows placed at positions t0 .. t0 + N - 1: scores depend
  // only on m - n, so the output must not depend on t0. Rotated in fp32 with
  // double angles, then rounded to bf16 by the kernel, each output moves by at
  // most the bf16 bound of the first test (rounding bf16 angles or rotating in
  // bf16 would break the property by far more at these positions).
  const Case c{1, 1, 16, 64, {}, false, 0.0};
  const Shape shape{1, 1, c.N, c.dh};
  const Tensor q = test::randn(shape, 1, 1.5).to(DType::F32), k = test::randn(shape, 2, 1.5).to(DType::F32);
  const Var v(test::randn(shape, 3).to(DType::F32));
  const PrecisionScope bf16(Precision::bf16);
  const AttentionOptions opt = test::options_for(c, Var(), nullptr);
  const Tensor at_zero = attention(rope_at(q, 0), rope_at(k, 0), v, opt).value();
  // sigma, the largest |scale q_m . k_n| (the same at every t0), from the rotated rows in double.
  const std::vector<double> rq = rope_at(q, 0).value().to_doubles(), rk = rope_at(k, 0).value().to_doubles();
  double sigma = 0.0;
  for (int64_t m = 0; m < c.N; ++m)
    for (int64_t n = 0; n < c.N; ++n) {
      double s = 0.0;
      for (int64_t d = 0; d < c.dh; ++d) s += rq[m * c.dh + d] * rk[n * c.dh + d];
      sigma = std::max(sigma, std::abs(s) / std::sqrt(static_cast<double>(c.dh)));
    }
  const double bound = 8 * kUnit * (1 + 2 * sigma) * max_abs(at_zero);
  for (int64_t t0 : {1, 777, 31416, 65535, 99984}) {  // the last row sits at 99999
    INFO("first position " << t0);
    const Tensor out = attention(rope_at(q, t0), rope_at(k, t0), v, opt).value();
    CHECK(max_abs_difference(out, at_zero) <= bound);
    CHECK(max_abs_difference(out, at_zero) > 0.0);  // different roundings: the check is not vacuous
  }
}

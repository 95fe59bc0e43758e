// Causal linear attention's running sums, out_i = sum_{j <= i} (q_i . k_j) v_j:
// gradient check; the forward against the full masked N x N sums in double and
// the gradients against the composed reference (q k^T, masked below the
// diagonal, times v); one thread gives the bits of two.
#include <catch2/catch.hpp>

#include <vector>

#include "engine/ops.h"
#include "gradcheck_expect.h"
#include "optim_fixtures.h"

using namespace rotor;
using test::randn;
using Vars = std::vector<Var>;

namespace {

// sum_{j <= i} (q_i . k_j) v_j from the full N x N products, in double.
std::vector<double> masked_sums(const Tensor& q, const Tensor& k, const Tensor& v) {
  const int64_t N = q.size(-2), d = q.size(-1), e = v.size(-1), G = q.numel() / (N * d);
  const std::vector<double> qd = q.to_doubles(), kd = k.to_doubles(), vd = v.to_doubles();
  std::vector<double> out(static_cast<size_t>(G * N * e), 0.0);
  for (int64_t g = 0; g < G; ++g)
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j <= i; ++j) {
        double score = 0.0;
        for (int64_t a = 0; a < d; ++a) score += qd[(g * N + i) * d + a] * kd[(g * N + j) * d + a];
        for (int64_t c = 0; c < e; ++c) out[(g * N + i) * e + c] += score * vd[(g * N + j) * e + c];
      }
  return out;
}

// The composed reference: (q k^T) * [j <= i], then times v.
Var composed(const Var& q, const Var& k, const Var& v) {
  const int64_t N = q.size(-2);
  std::vector<double> lower(static_cast<size_t>(N * N), 0.0);
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j <= i; ++j) lower[i * N + j] = 1.0;
  const Var mask(Tensor::from_doubles({N, N}, q.dtype(), lower));
  return matmul(mul(matmul(q, k, false, true), mask), v);
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double m = 0.0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

}  // namespace

GRADCHECK(OpKind::causal_linear_attention, "causal linear attention: q, k, v, d != e, one position, rank 3") {
  const auto op = [](const Vars& x) { return causal_linear_attention(x[0], x[1], x[2]); };
  CHECK_GRADIENTS(OpKind::causal_linear_attention, op,
                  {randn({2, 2, 5, 3}, 51), randn({2, 2, 5, 3}, 52), randn({2, 2, 5, 4}, 53)});
  CHECK_GRADIENTS(OpKind::causal_linear_attention, op,
                  {randn({1, 1, 1, 2}, 54), randn({1, 1, 1, 2}, 55), randn({1, 1, 1, 1}, 56)});
  CHECK_GRADIENTS(OpKind::causal_linear_attention, op,
                  {randn({3, 7, 2}, 57), randn({3, 7, 2}, 58), randn({3, 7, 1}, 59)});
}

TEST_CASE("causal linear attention equals the masked N x N sums and their composed gradients", "[causal_linear]") {
  const int64_t n = GENERATE(1, 2, 9, 33);
  const int64_t e = GENERATE(1, 5);
  CAPTURE(n, e);
  Vars fused{Var(randn({2, 3, n, 4}, 61), true), Var(randn({2, 3, n, 4}, 62), true),
             Var(randn({2, 3, n, e}, 63), true)};
  Vars reference{Var(fused[0].value(), true), Var(fused[1].value(), true), Var(fused[2].value(), true)};
  const Var out = causal_linear_attention(fused[0], fused[1], fused[2]);
  CHECK(max_difference(out.value().to_doubles(), masked_sums(fused[0].value(), fused[1].value(), fused[2].value())) <
        1e-10);
  const Tensor weights = randn(out.shape(), 64);
  backward(sum_all(mul(out, Var(weights))));
  backward(sum_all(mul(composed(reference[0], reference[1], reference[2]), Var(weights))));
  for (size_t i = 0; i < fused.size(); ++i) {
    CAPTURE(i);
    CHECK(max_difference(fused[i].grad().to_doubles(), reference[i].grad().to_doubles()) < 1e-10);
  }
}

TEST_CASE("causal linear attention in float32 stays within 1e-5 of the double sums", "[causal_linear]") {
  const Tensor q = randn({2, 2, 40, 8}, 71).to(DType::F32), k = randn({2, 2, 40, 8}, 72).to(DType::F32);
  const Tensor v = randn({2, 2, 40, 8}, 73).to(DType::F32);
  const std::vector<double> exact = masked_sums(q, k, v);
  const std::vector<double> got = causal_linear_attention(Var(q), Var(k), Var(v)).value().to_doubles();
  double scale = 1.0;
  for (double x : exact) scale = std::max(scale, std::abs(x));
  CHECK(max_difference(got, exact) / scale < 1e-5);
}

TEST_CASE("causal linear attention: one thread gives the bits of two", "[causal_linear][determinism]") {
  // 6 groups of 64 x 16 x 16 work: one group a chunk, so two threads split them.
  const auto run = [] {
    Vars x{Var(randn({2, 3, 64, 16}, 81).to(DType::F32), true), Var(randn({2, 3, 64, 16}, 82).to(DType::F32), true),
           Var(randn({2, 3, 64, 16}, 83).to(DType::F32), true)};
    const Var out = causal_linear_attention(x[0], x[1], x[2]);
    backward(sum_all(mul(out, Var(randn(out.shape(), 84).to(DType::F32)))));
    return std::vector<Tensor>{out.value(), x[0].grad(), x[1].grad(), x[2].grad()};
  };
  std::vector<Tensor> one, two;
  {
    test::ThreadCountGuard threads(1);
    one = run();
  }
  {
    test::ThreadCountGuard threads(2);
    two = run();
  }
  for (size_t i = 0; i < one.size(); ++i) {
    CAPTURE(i);
    CHECK(test::same_bits(one[i], two[i]));
  }
}

TEST_CASE("causal linear attention rejects mismatched shapes and dtypes", "[causal_linear]") {
  const Var q(randn({1, 4, 3}, 1)), v(randn({1, 4, 2}, 2));
  CHECK_THROWS_AS(causal_linear_attention(q, Var(randn({1, 5, 3}, 3)), v), ShapeError);
  CHECK_THROWS_AS(causal_linear_attention(q, q, Var(randn({1, 5, 2}, 4))), ShapeError);
  CHECK_THROWS_AS(causal_linear_attention(q, q, Var(randn({4, 2}, 5))), ShapeError);
  CHECK_THROWS_AS(causal_linear_attention(q, q, Var(randn({1, 4, 2}, 6).to(DType::F32))), ValueError);
}

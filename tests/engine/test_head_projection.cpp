// project_heads (engine/ops/head_projection.cpp): gradients in double, the
// composed path's values (split_heads(linear(x, w, b))) in fp32, the same bits
// at any thread count, bf16 within fp32 summation's bound, and its shape errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "engine/bf16.h"
#include "engine/ops.h"
#include "engine/precision.h"
#include "gradcheck_expect.h"
#include "optim_fixtures.h"

using namespace rotor;
using test::randn;
using test::same_bits;
using Vars = std::vector<Var>;

namespace {

// [B, N, d] -> [B, H, N, dh], as attention did before project_heads.
Var split_heads(const Var& y, int64_t heads) {
  return permute(reshape(y, {y.size(0), y.size(1), heads, y.size(2) / heads}), {0, 2, 1, 3});
}

// inputs: x, then P weights, then P biases (or none); the outputs mixed into one Var.
Var mixed(const Vars& outs) {
  Var y = outs[0];
  const double scales[] = {0.7, -1.3};
  for (size_t i = 1; i < outs.size(); ++i) y = add(y, mul_scalar(outs[i], scales[(i - 1) % 2]));
  return y;
}

Vars projections(const Vars& v, size_t p, bool with_bias, int64_t heads) {
  const Vars w(v.begin() + 1, v.begin() + 1 + p);
  const Vars b = with_bias ? Vars(v.begin() + 1 + p, v.begin() + 1 + 2 * p) : Vars(p);  // p undefined: no bias
  return project_heads(v[0], w, b, heads);
}

std::vector<Tensor> inputs(const Shape& xs, int64_t d, size_t p, bool with_bias, uint64_t seed) {
  std::vector<Tensor> t{randn(xs, seed)};
  for (size_t i = 0; i < p; ++i) t.push_back(randn({d, xs[2]}, seed + 1 + i, 0.5));
  for (size_t i = 0; with_bias && i < p; ++i) t.push_back(randn({d}, seed + 10 + i));
  return t;
}

}  // namespace

GRADCHECK(OpKind::head_projection, "head_projection: q, k, v with and without biases") {
  for (bool with_bias : {true, false})
    CHECK_GRADIENTS(
        OpKind::head_projection, [=](const Vars& v) { return mixed(projections(v, 3, with_bias, 2)); },
        inputs({2, 3, 5}, 4, 3, with_bias, 1));
}

GRADCHECK(OpKind::head_projection, "head_projection: one projection, one head and several") {
  for (int64_t heads : {1, 3})
    CHECK_GRADIENTS(
        OpKind::head_projection, [=](const Vars& v) { return mixed(projections(v, 1, true, heads)); },
        inputs({3, 2, 4}, 6, 1, true, 2));
}

GRADCHECK(OpKind::head_projection, "head_projection: an output nothing uses") {
  CHECK_GRADIENTS(
      OpKind::head_projection,
      [](const Vars& v) {
        const Vars o = projections(v, 3, true, 2);
        return add(o[0], mul_scalar(o[2], -1.3));  // k unused: its gradient never defined
      },
      inputs({2, 4, 3}, 4, 3, true, 3));
}

namespace {

struct Run {
  std::vector<Tensor> values;  // the P outputs
  std::vector<Tensor> grads;   // x, weights, biases
};

// fp32 forward and backward of sum_p sum(out_p * R_p) through `project`.
Run run_fp32(const std::function<Vars(const Vars&)>& project, const std::vector<Tensor>& in) {
  Vars leaves;
  for (const Tensor& t : in) leaves.emplace_back(t.to(DType::F32), true);
  const Vars outs = project(leaves);
  Var loss;
  for (size_t i = 0; i < outs.size(); ++i) {
    const Var term = sum_all(mul(outs[i], Var(randn(outs[i].shape(), 50 + i).to(DType::F32))));
    loss = loss.defined() ? add(loss, term) : term;
  }
  backward(loss);
  Run r;
  for (const Var& o : outs) r.values.push_back(o.value());
  for (const Var& l : leaves) r.grads.push_back(l.grad());
  return r;
}

Vars composed_projection(const Vars& v, size_t p, int64_t heads) {
  Vars outs;
  for (size_t i = 0; i < p; ++i) outs.push_back(split_heads(linear(v[0], v[1 + i], v[1 + p + i]), heads));
  return outs;
}

// max |a - b| over max |b|: small for the same sums rounded differently.
double relative_difference(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    diff = std::max(diff, std::fabs(a.at(i) - b.at(i)));
    scale = std::max(scale, std::fabs(b.at(i)));
  }
  return diff / scale;
}

// B * N = 600 rows: every product is tiled.
const Shape kRowsShape{2, 300, 48};

}  // namespace

TEST_CASE("head_projection matches split_heads(linear(x, w, b)) and its gradients") {
  const auto in = inputs(kRowsShape, 64, 3, true, 4);
  const Run fused = run_fp32([](const Vars& v) { return projections(v, 3, true, 4); }, in);
  const Run ref = run_fp32([](const Vars& v) { return composed_projection(v, 3, 4); }, in);
  // The same dot products, but BLAS need not round a [128, 3d] block as it does a [128, d] one (here the values
  // and weight gradients differ in the last bits), and dx is one product over K = 3d rather than three
  // accumulated: measured 1.6e-7 to 5.6e-7 of the largest value, a few ulps.
  for (size_t i = 0; i < 3; ++i) CHECK(relative_difference(fused.values[i], ref.values[i]) < 5e-6);
  for (size_t i = 0; i < 4; ++i) CHECK(relative_difference(fused.grads[i], ref.grads[i]) < 5e-6);
  // The bias gradients are the same column sums, each in the same row order.
  for (size_t i = 4; i < 7; ++i) CHECK(same_bits(fused.grads[i], ref.grads[i]));
}

TEST_CASE("head_projection gives the same bits at one thread and two") {
  const auto in = inputs(kRowsShape, 64, 3, true, 5);
  auto run_at = [&](int threads) {
    test::ThreadCountGuard guard(threads);
    return run_fp32([](const Vars& v) { return projections(v, 3, true, 4); }, in);
  };
  const Run one = run_at(1), two = run_at(2);
  for (size_t i = 0; i < one.values.size(); ++i) CHECK(same_bits(one.values[i], two.values[i]));
  for (size_t i = 0; i < one.grads.size(); ++i) CHECK(same_bits(one.grads[i], two.grads[i]));
}

TEST_CASE("head_projection in bf16 is within fp32 summation's bound of the rounded inputs' product") {
  // As tests/engine/test_gemm_bf16.cpp: bf16 products are exact in fp32, so an
  // output is within gamma_{K+4} (sum_k |x_k w_k| + |b|) of the double product
  // of the rounded inputs plus the bias (K additions, the bias, and slack).
  const int64_t din = 48, d = 64, heads = 4, rows = kRowsShape[0] * kRowsShape[1];
  const auto in = inputs(kRowsShape, d, 3, true, 6);
  Vars v;
  for (const Tensor& t : in) v.emplace_back(t.to(DType::F32));
  Vars outs;
  {
    PrecisionScope bf16(Precision::bf16);
    outs = projections(v, 3, true, heads);
  }
  const double u = std::ldexp(1.0, -24), gamma = (din + 4) * u / (1 - (din + 4) * u);
  int64_t bad = 0;
  for (int64_t p = 0; p < 3; ++p)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < d; ++j) {
        const float* x = v[0].value().data<float>() + r * din;
        const float* w = v[1 + p].value().data<float>() + j * din;
        const double b = v[4 + p].value().data<float>()[j];
        double exact = b, magnitude = std::fabs(b);
        for (int64_t k = 0; k < din; ++k) {
          const double t = double(round_to_bf16(x[k])) * double(round_to_bf16(w[k]));
          exact += t;
          magnitude += std::fabs(t);
        }
        const int64_t bi = r / kRowsShape[1], n = r % kRowsShape[1], h = j / (d / heads), e = j % (d / heads);
        const double got = outs[p].value().at(((bi * heads + h) * kRowsShape[1] + n) * (d / heads) + e);
        if (!(std::fabs(got - exact) <= gamma * magnitude) && bad++ < 3)
          FAIL_CHECK("output " << p << " row " << r << " col " << j << ": " << got << " vs " << exact);
      }
  CHECK(bad == 0);
}

TEST_CASE("head_projection rejects shapes that do not fit, naming the op and the shapes") {
  const Var x(randn({2, 3, 4}, 1));
  const Var w(randn({6, 4}, 2)), w5(randn({6, 5}, 3)), b(randn({6}, 4)), b5(randn({5}, 5));
  using Catch::Contains;
  // Catch's combined matchers hold their parts by reference: each is spelled out in its check.
  CHECK_THROWS_AS(project_heads(x, {w, w5}, {}, 2), ShapeError);
  CHECK_THROWS_WITH(project_heads(x, {w, w5}, {}, 2),
                    Contains("head_projection") && Contains("[6, 5]") && Contains("[2, 3, 4]"));
  CHECK_THROWS_AS(project_heads(x, {w}, {}, 4), ShapeError);
  CHECK_THROWS_WITH(project_heads(x, {w}, {}, 4),
                    Contains("head_projection") && Contains("heads 4") && Contains("[6, 4]"));
  CHECK_THROWS_AS(project_heads(x, {w, w}, {b}, 2), ShapeError);
  CHECK_THROWS_WITH(project_heads(x, {w, w}, {b}, 2), Contains("head_projection") && Contains("biases {[6]}"));
  CHECK_THROWS_WITH(project_heads(x, {w, w}, {b, Var()}, 2), Contains("head_projection") && Contains("{[6], none}"));
  CHECK_THROWS_AS(project_heads(x, {w}, {b5}, 2), ShapeError);
  CHECK_THROWS_WITH(project_heads(x, {w}, {b5}, 2), Contains("head_projection") && Contains("[5]"));
  CHECK_THROWS_AS(project_heads(Var(randn({3, 4}, 6)), {w}, {}, 2), ShapeError);
}

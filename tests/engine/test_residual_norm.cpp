// The fused residual ops: residual_norm (add, dropout, layer norm) and
// add_dropout give the composed ops' bits, values and gradients, at any thread
// count, and their gradients pass the finite-difference check.
#include <catch2/catch.hpp>
#include <functional>
#include <vector>

#include "engine/ops.h"
#include "gradcheck_expect.h"
#include "optim_fixtures.h"

using namespace rotor;
using test::randn;
using test::same_bits;
using Vars = std::vector<Var>;

namespace {

const RandomKey kKey{42, stream_id("residual-norm-test"), 7};

// Which outputs of residual_norm the loss uses.
enum class Uses { both, only_n, only_h };

Var combine(const Var& h, const Var& n, Uses uses) {
  if (uses == Uses::only_n) return n;
  if (uses == Uses::only_h) return h;
  return add(h, mul_scalar(n, 0.7));
}

// The fused op, or the composed ops it stands for, over inputs {x, y, weight, bias}.
using ResidualFn = std::function<Var(const Vars&, double p, Uses)>;
const ResidualFn kFused = [](const Vars& v, double p, Uses uses) {
  const ResidualNorm r = residual_norm(v[0], v[1], p, kKey, v[2], v[3]);
  return combine(r.h, r.n, uses);
};
const ResidualFn kComposed = [](const Vars& v, double p, Uses uses) {
  const Var h = add(v[0], dropout(v[1], p, kKey, true));
  return combine(h, layer_norm(h, v[2], v[3]), uses);
};

// Value, loss sum(f * r) and every input's gradient, in float32 at `threads` threads.
std::vector<Tensor> run32(const ResidualFn& f, double p, Uses uses, int64_t rows, int64_t D, int threads) {
  test::ThreadCountGuard guard(threads);
  const std::vector<Shape> shapes{{rows, D}, {rows, D}, {D}, {D}};
  Vars in;
  for (size_t i = 0; i < shapes.size(); ++i) in.emplace_back(randn(shapes[i], 10 + i).to(DType::F32), true);
  const Var out = f(in, p, uses);
  const Var loss = sum_all(mul(out, Var(randn(out.shape(), 99).to(DType::F32))));
  backward(loss);
  std::vector<Tensor> result{out.value(), loss.value()};
  for (const Var& v : in) result.push_back(v.grad());
  return result;
}

void require_same(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("output " << i << " (value, loss, then the gradients of x, y, weight, bias)");
    if (a[i].defined() && b[i].defined())
      CHECK(same_bits(a[i], b[i]));
    else
      CHECK(a[i].defined() == b[i].defined());  // an input no gradient reached
  }
}

}  // namespace

GRADCHECK(OpKind::residual_norm, "residual_norm with and without dropout, through h, n or both") {
  // D = 6: rows start inside a Philox counter, which the mask must handle like dropout()'s flat index.
  const std::vector<Tensor> inputs{randn({4, 6}, 1), randn({4, 6}, 2), randn({6}, 3), randn({6}, 4)};
  for (double p : {0.0, 0.3})
    for (Uses uses : {Uses::both, Uses::only_n, Uses::only_h}) {
      INFO("p " << p << " uses " << static_cast<int>(uses));
      CHECK_GRADIENTS(
          OpKind::residual_norm, [&](const Vars& v) { return kFused(v, p, uses); }, inputs);
    }
}

GRADCHECK(OpKind::add_dropout, "add_dropout with and without dropout") {
  for (double p : {0.0, 0.3})
    CHECK_GRADIENTS(OpKind::add_dropout, [&](const Vars& v) { return add_dropout(v[0], v[1], p, kKey); },
                    {randn({5, 7}, 1), randn({5, 7}, 2)});
}

TEST_CASE("residual_norm gives the composed ops' bits, values and gradients, over several chunks") {
  // 1000 rows of 70: several row chunks, rows off the Philox counter grid, and > kElementwiseGrain elements.
  for (double p : {0.0, 0.1})
    for (Uses uses : {Uses::both, Uses::only_n, Uses::only_h}) {
      INFO("p " << p << " uses " << static_cast<int>(uses));
      require_same(run32(kFused, p, uses, 1000, 70, 2), run32(kComposed, p, uses, 1000, 70, 2));
    }
}

TEST_CASE("add_dropout gives the bits of add(x, dropout(y)), values and gradients") {
  for (double p : {0.0, 0.1}) {
    INFO("p " << p);
    const ResidualFn fused = [](const Vars& v, double q, Uses) { return add_dropout(v[0], v[1], q, kKey); };
    const ResidualFn composed = [](const Vars& v, double q, Uses) { return add(v[0], dropout(v[1], q, kKey, true)); };
    require_same(run32(fused, p, Uses::both, 700, 64, 2), run32(composed, p, Uses::both, 700, 64, 2));
  }
}

TEST_CASE("1 and 2 threads agree: residual_norm and add_dropout") {
  require_same(run32(kFused, 0.1, Uses::both, 1000, 70, 1), run32(kFused, 0.1, Uses::both, 1000, 70, 2));
  const ResidualFn fused = [](const Vars& v, double q, Uses) { return add_dropout(v[0], v[1], q, kKey); };
  require_same(run32(fused, 0.1, Uses::both, 700, 64, 1), run32(fused, 0.1, Uses::both, 700, 64, 2));
}

TEST_CASE("residual_norm and add_dropout reject bad shapes and rates") {
  const Var x(randn({3, 4}, 1)), w(randn({4}, 2)), b(randn({4}, 3));
  using Catch::Matchers::Contains;
  CHECK_THROWS_AS(residual_norm(x, Var(randn({4, 3}, 4)), 0.1, kKey, w, b), ShapeError);
  CHECK_THROWS_WITH(residual_norm(x, Var(randn({4, 3}, 4)), 0.1, kKey, w, b), Contains("residual_norm"));
  CHECK_THROWS_WITH(residual_norm(x, x, 0.1, kKey, Var(randn({3}, 5)), b), Contains("residual_norm"));
  CHECK_THROWS_AS(residual_norm(x, x, 0.1, kKey, Var(randn({3}, 5)), b), ShapeError);
  CHECK_THROWS_AS(residual_norm(x, x, 0.1, kKey, w, Var(randn({4, 1}, 6))), ShapeError);
  CHECK_THROWS_AS(add_dropout(x, Var(randn({3, 5}, 7)), 0.1, kKey), ShapeError);
  CHECK_THROWS_WITH(add_dropout(x, Var(randn({3, 5}, 7)), 0.1, kKey), Contains("add_dropout"));
  for (double p : {-0.1, 1.0}) {
    CHECK_THROWS_AS(residual_norm(x, x, p, kKey, w, b), ValueError);
    CHECK_THROWS_AS(add_dropout(x, x, p, kKey), ValueError);
    CHECK_THROWS_WITH(add_dropout(x, x, p, kKey), Contains("add_dropout: p must be in [0, 1)"));
  }
}

TEST_CASE("residual_norm's backward keeps h but not x or y, and add_dropout keeps neither input") {
  Var leaf(randn({3, 4}, 1), true);
  const Var w(randn({4}, 2), true), b(randn({4}, 3), true);
  std::shared_ptr<Node> x_node, y_node, h_node, sum_x, sum_y;
  Var loss;
  {
    Var x = mul_scalar(leaf, 2.0), y = mul_scalar(leaf, 3.0);
    x_node = x.node();
    y_node = y.node();
    const ResidualNorm r = residual_norm(x, y, 0.2, kKey, w, b);
    h_node = r.h.node();
    Var u = mul_scalar(leaf, 4.0), v = mul_scalar(leaf, 5.0);
    sum_x = u.node();
    sum_y = v.node();
    loss = sum_all(add(r.n, add_dropout(u, v, 0.2, kKey)));
  }
  CHECK_FALSE(x_node->value.defined());
  CHECK_FALSE(y_node->value.defined());
  CHECK_FALSE(h_node->value.defined());  // the node lets go; the backward holds its own handle on h
  CHECK_FALSE(sum_x->value.defined());
  CHECK_FALSE(sum_y->value.defined());
  backward(loss);
  CHECK(w.grad().defined());
  CHECK(leaf.grad().defined());
}

// backward(loss, on_leaf_final): data-parallel training starts reducing a
// parameter's gradient when this callback fires, so it must fire exactly once
// per leaf, and only when nothing will add to that gradient any more.
#include <catch2/catch.hpp>
#include <map>

#include "engine/ops.h"
#include "gradcheck.h"
#include "optim_fixtures.h"

using namespace rotor;

TEST_CASE("backward reports each leaf once, when its gradient is final") {
  Var a(test::randn({3, 3}, 1), true), b(test::randn({3, 3}, 2), true), x(test::randn({3, 3}, 3));
  // `a` feeds the first and the last op, `b` only the middle one.
  const Var y = matmul(a, x);
  const Var z = matmul(y + b, a);
  const Var loss = sum_all(z * z);
  std::map<const Node*, Tensor> seen;
  backward(loss, [&](const Node& leaf) {
    REQUIRE(seen.count(&leaf) == 0);
    seen[&leaf] = leaf.grad.clone();
  });
  REQUIRE(seen.size() == 2);
  CHECK(test::same_bits(seen.at(a.node().get()), a.grad()));
  CHECK(test::same_bits(seen.at(b.node().get()), b.grad()));
}

TEST_CASE("backward with a callback computes the same gradients as without") {
  auto grads = [](bool hook) {
    Var a(test::randn({4, 2}, 5), true);
    const Var loss = sum_all(matmul(a, a, true, false) * Var(test::randn({2, 2}, 6)));
    if (hook)
      backward(loss, [](const Node&) {});
    else
      backward(loss);
    return a.grad();
  };
  CHECK(test::same_bits(grads(true), grads(false)));
}

// Gradient checks: matmul (all transposes, batched, shared right operand),
// linear, activated_linear, embedding, layer norm.
#include "engine/ops.h"
#include "gradcheck_expect.h"

using namespace rotor;
using test::randn;
using Vars = std::vector<Var>;

GRADCHECK(OpKind::matmul, "matmul 2-D with every transpose combination") {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const Shape as = ta ? Shape{4, 3} : Shape{3, 4};
      const Shape bs = tb ? Shape{5, 4} : Shape{4, 5};
      CHECK_GRADIENTS(OpKind::matmul, [=](const Vars& v) { return matmul(v[0], v[1], ta, tb); },
                      {randn(as, 1), randn(bs, 2)});
    }
}

GRADCHECK(OpKind::matmul, "matmul batched, and with a shared 2-D right operand") {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const Shape as = ta ? Shape{2, 3, 4, 3} : Shape{2, 3, 3, 4};
      const Shape bs = tb ? Shape{2, 3, 5, 4} : Shape{2, 3, 4, 5};
      CHECK_GRADIENTS(OpKind::matmul, [=](const Vars& v) { return matmul(v[0], v[1], ta, tb); },
                      {randn(as, 3), randn(bs, 4)});
      const Shape shared = tb ? Shape{5, 4} : Shape{4, 5};
      CHECK_GRADIENTS(OpKind::matmul, [=](const Vars& v) { return matmul(v[0], v[1], ta, tb); },
                      {randn(as, 5), randn(shared, 6)});
    }
}

GRADCHECK(OpKind::matmul, "matmul large enough to be tiled across threads") {
  CHECK_GRADIENTS(OpKind::matmul, [](const Vars& v) { return matmul(v[0], v[1]); },
                  {randn({300, 3}, 1), randn({3, 2}, 2)});
  CHECK_GRADIENTS(OpKind::matmul, [](const Vars& v) { return matmul(v[0], v[1], false, true); },
                  {randn({2, 3}, 1), randn({260, 3}, 2)});
}

GRADCHECK(OpKind::linear, "linear with and without bias, 2-D and 3-D input") {
  CHECK_GRADIENTS(OpKind::linear, [](const Vars& v) { return linear(v[0], v[1], v[2]); },
                  {randn({3, 4}, 1), randn({5, 4}, 2), randn({5}, 3)});
  CHECK_GRADIENTS(OpKind::linear, [](const Vars& v) { return linear(v[0], v[1], v[2]); },
                  {randn({2, 3, 4}, 1), randn({5, 4}, 2), randn({5}, 3)});
  CHECK_GRADIENTS(OpKind::linear, [](const Vars& v) { return linear(v[0], v[1]); },
                  {randn({2, 4}, 1), randn({3, 4}, 2)});
}

GRADCHECK(OpKind::activated_linear, "activated_linear with each activation, with and without bias") {
  for (const HiddenActivation f : {HiddenActivation::relu, HiddenActivation::gelu_erf, HiddenActivation::gelu_tanh}) {
    CHECK_GRADIENTS(OpKind::activated_linear, [f](const Vars& v) { return activated_linear(v[0], f, v[1], v[2]); },
                    {randn({2, 3, 4}, 1), randn({5, 4}, 2), randn({5}, 3)});
    CHECK_GRADIENTS(OpKind::activated_linear, [f](const Vars& v) { return activated_linear(v[0], f, v[1]); },
                    {randn({3, 4}, 4), randn({2, 4}, 5)});
  }
}

GRADCHECK(OpKind::embedding, "embedding with repeated ids") {
  const std::vector<int32_t> ids{0, 3, 3, 1, 4, 3};
  CHECK_GRADIENTS(OpKind::embedding, [&](const Vars& v) { return embedding(v[0], ids, {2, 3}); }, {randn({5, 4}, 1)});
}

GRADCHECK(OpKind::layer_norm, "layer_norm over the last dim") {
  auto f = [](const Vars& v) { return layer_norm(v[0], v[1], v[2], 1e-5); };
  CHECK_GRADIENTS(OpKind::layer_norm, f, {randn({3, 6}, 1), randn({6}, 2), randn({6}, 3)});
  CHECK_GRADIENTS(OpKind::layer_norm, f, {randn({2, 3, 5}, 4, 3.0), randn({5}, 5), randn({5}, 6)});
}

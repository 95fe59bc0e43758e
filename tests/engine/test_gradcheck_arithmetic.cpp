// Gradient checks: broadcast arithmetic, scalar ops and activations.
#include "engine/ops.h"
#include "gradcheck_expect.h"

using namespace rotor;
using test::rand_positive;
using test::randn;
using Vars = std::vector<Var>;

GRADCHECK(OpKind::add, "add with broadcasting") {
  auto f = [](const Vars& v) { return add(v[0], v[1]); };
  CHECK_GRADIENTS(OpKind::add, f, {randn({2, 3, 4}, 1), randn({2, 3, 4}, 2)});
  CHECK_GRADIENTS(OpKind::add, f, {randn({2, 3, 4}, 1), randn({3, 1}, 2)});
  CHECK_GRADIENTS(OpKind::add, f, {randn({4}, 1), randn({2, 1, 4}, 2)});
  CHECK_GRADIENTS(OpKind::add, f, {randn({2, 1, 3}, 3), randn({1, 4, 1}, 4)});
}

GRADCHECK(OpKind::sub, "sub with broadcasting") {
  auto f = [](const Vars& v) { return sub(v[0], v[1]); };
  CHECK_GRADIENTS(OpKind::sub, f, {randn({3, 4}, 1), randn({3, 4}, 2)});
  CHECK_GRADIENTS(OpKind::sub, f, {randn({2, 3, 4}, 1), randn({4}, 2)});
  CHECK_GRADIENTS(OpKind::sub, f, {randn({1}, 5), randn({2, 3}, 6)});
}

GRADCHECK(OpKind::mul, "mul with broadcasting") {
  auto f = [](const Vars& v) { return mul(v[0], v[1]); };
  CHECK_GRADIENTS(OpKind::mul, f, {randn({3, 4}, 1), randn({3, 4}, 2)});
  CHECK_GRADIENTS(OpKind::mul, f, {randn({2, 3, 4}, 1), randn({2, 1, 4}, 2)});
  // the same Var on both sides accumulates two contributions
  CHECK_GRADIENTS(OpKind::mul, [](const Vars& v) { return mul(v[0], v[0]); }, {randn({5}, 3)});
}

GRADCHECK(OpKind::div, "div with broadcasting") {
  auto f = [](const Vars& v) { return div(v[0], v[1]); };
  CHECK_GRADIENTS(OpKind::div, f, {randn({3, 4}, 1), rand_positive({3, 4}, 2)});
  CHECK_GRADIENTS(OpKind::div, f, {randn({2, 3, 4}, 1), rand_positive({3, 1}, 2)});
}

GRADCHECK(OpKind::add_scalar, "add_scalar") {
  CHECK_GRADIENTS(OpKind::add_scalar, [](const Vars& v) { return add_scalar(v[0], 2.5); }, {randn({2, 3}, 1)});
}

GRADCHECK(OpKind::mul_scalar, "mul_scalar") {
  CHECK_GRADIENTS(OpKind::mul_scalar, [](const Vars& v) { return mul_scalar(v[0], -1.75); }, {randn({2, 3}, 1)});
}

GRADCHECK(OpKind::pow_scalar, "pow_scalar") {
  CHECK_GRADIENTS(OpKind::pow_scalar, [](const Vars& v) { return pow_scalar(v[0], 3.0); }, {randn({2, 3}, 1)});
  CHECK_GRADIENTS(OpKind::pow_scalar, [](const Vars& v) { return pow_scalar(v[0], -0.5); }, {rand_positive({4}, 2)});
}

GRADCHECK(OpKind::neg, "neg") {
  CHECK_GRADIENTS(OpKind::neg, [](const Vars& v) { return neg(v[0]); }, {randn({3, 2}, 1)});
}

GRADCHECK(OpKind::exp, "exp") {
  CHECK_GRADIENTS(OpKind::exp, [](const Vars& v) { return rotor::exp(v[0]); }, {randn({3, 2}, 1)});
}

GRADCHECK(OpKind::log, "log") {
  CHECK_GRADIENTS(OpKind::log, [](const Vars& v) { return rotor::log(v[0]); }, {rand_positive({3, 2}, 1)});
}

GRADCHECK(OpKind::sqrt, "sqrt") {
  CHECK_GRADIENTS(OpKind::sqrt, [](const Vars& v) { return rotor::sqrt(v[0]); }, {rand_positive({3, 2}, 1)});
}

GRADCHECK(OpKind::gelu, "gelu, erf and tanh forms") {
  CHECK_GRADIENTS(OpKind::gelu, [](const Vars& v) { return gelu(v[0], GeluForm::erf); }, {randn({4, 5}, 1, 2.0)});
  CHECK_GRADIENTS(OpKind::gelu, [](const Vars& v) { return gelu(v[0], GeluForm::tanh); }, {randn({4, 5}, 2, 2.0)});
}

GRADCHECK(OpKind::relu, "relu") {
  CHECK_GRADIENTS(OpKind::relu, [](const Vars& v) { return relu(v[0]); }, {randn({4, 5}, 1)});
}

GRADCHECK(OpKind::elu, "elu") {
  CHECK_GRADIENTS(OpKind::elu, [](const Vars& v) { return elu(v[0]); }, {randn({4, 5}, 1)});
}

GRADCHECK(OpKind::tanh, "tanh") {
  CHECK_GRADIENTS(OpKind::tanh, [](const Vars& v) { return rotor::tanh(v[0]); }, {randn({4, 5}, 1)});
}

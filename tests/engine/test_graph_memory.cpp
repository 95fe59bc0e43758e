// A graph keeps an interior value only while a backward may read it (engine/var.h):
// a value is released when its last Var goes and no recorded closure reads it, and
// the gradients are the same as with every value kept.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <tuple>

#include "engine/ops.h"
#include "engine/tensor_buffer.h"
#include "gradcheck.h"
#include "optim_fixtures.h"

using namespace rotor;

namespace {

bool value_held(const std::shared_ptr<Node>& node) { return node->value.defined(); }

}  // namespace

TEST_CASE("a value no backward reads is released when its last Var goes") {
  Var x(test::randn({4, 6}, 1), true);
  Var scaled = mul_scalar(x, 2.0);  // read by nothing below but the permute, which reads no values
  const std::shared_ptr<Node> scaled_node = scaled.node();
  Var y = permute(scaled, {1, 0});
  CHECK(value_held(scaled_node));  // a Var still points at it
  scaled = Var();
  CHECK_FALSE(value_held(scaled_node));
  CHECK(scaled_node->value.shape() == Shape{4, 6});  // shape and dtype stay for the backward
  CHECK(value_held(x.node()));                       // leaves keep their values
  CHECK(value_held(y.node()));
}

TEST_CASE("a value some backward reads stays until that backward has run") {
  Var x(test::randn({3, 5}, 2), true), w(test::randn({4, 5}, 3), true);
  std::shared_ptr<Node> hidden, product;
  Var loss;
  {
    Var h = mul_scalar(x, 3.0);  // read by the linear below (its dW needs x)
    hidden = h.node();
    Var y = linear(h, w, Var());  // its own output is read by no one: the sum reads no values
    product = y.node();
    loss = sum_all(softmax(y, Tensor()));  // softmax reads its own output
  }
  CHECK(value_held(hidden));
  CHECK_FALSE(value_held(product));
  backward(loss);
  CHECK(x.grad().defined());
}

TEST_CASE("an op that reads its own output keeps it with no Var left") {
  Var x(test::randn({2, 7}, 4), true);
  std::shared_ptr<Node> probabilities;
  {
    Var p = softmax(x, Tensor());
    probabilities = p.node();
    Var unused = sum_all(p);
  }
  CHECK(value_held(probabilities));
}

TEST_CASE("nothing is released without a graph") {
  NoGradGuard no_graph;
  Var x(test::randn({3, 3}, 5), true);
  Var scaled = mul_scalar(x, 2.0);
  const std::shared_ptr<Node> node = scaled.node();
  Var y = permute(scaled, {1, 0});
  scaled = Var();
  CHECK(value_held(node));  // kept alive only by `node`; no graph means no release
}

TEST_CASE("gradients through released values equal those with every value held") {
  // A block shaped like the model's: projection, heads permute, scale, dropout, residual, layer norm.
  auto gradients = [](bool hold_every_value) {
    Var x(test::randn({2, 4, 6}, 6), true), w(test::randn({6, 6}, 7), true);
    Var gamma(test::randn({6}, 8), true), beta(test::randn({6}, 9), true);
    std::vector<Var> held;
    auto keep = [&](Var v) {
      if (hold_every_value) held.push_back(v);
      return v;
    };
    Var h = keep(linear(x, w, Var()));
    h = keep(permute(keep(reshape(h, {2, 4, 2, 3})), {0, 2, 1, 3}));
    h = keep(reshape(keep(permute(keep(mul_scalar(h, 0.5)), {0, 2, 1, 3})), {2, 4, 6}));
    h = keep(add(x, keep(dropout(h, 0.25, RandomKey{11, 0, 0}, true))));
    const Var loss = sum_all(keep(mul(keep(layer_norm(h, gamma, beta, 1e-5)), keep(add_scalar(h, 1.0)))));
    backward(loss);
    return std::vector<Tensor>{x.grad(), w.grad(), gamma.grad(), beta.grad()};
  };
  const std::vector<Tensor> released = gradients(false), held = gradients(true);
  for (size_t i = 0; i < held.size(); ++i) CHECK(test::same_bits(released[i], held[i]));
}

TEST_CASE("a chain of ops that read no values holds one intermediate at a time") {
  constexpr int64_t kRows = 256, kCols = 256;
  constexpr size_t kBytes = kRows * kCols * sizeof(float);
  Var x(Tensor::full({kRows, kCols}, DType::F32, 1.0), true);
  const size_t base = tensor_bytes_live();
  Var h = x;
  for (int i = 0; i < 8; ++i) h = permute(mul_scalar(h, 1.5), {1, 0});  // neither op reads a value
  // Only the last permute's output is alive (each earlier value was released when `h` moved on).
  CHECK(tensor_bytes_live() == base + kBytes);
  const Var loss = sum_all(h);
  backward(loss);
  CHECK(x.grad().at(0) == Approx(std::pow(1.5, 8)));
}

TEST_CASE("activated_linear gives the bits of linear over the activation, holding only its input") {
  const std::vector<std::pair<HiddenActivation, std::function<Var(const Var&)>>> activations{
      {HiddenActivation::relu, [](const Var& x) { return relu(x); }},
      {HiddenActivation::gelu_erf, [](const Var& x) { return gelu(x, GeluForm::erf); }},
      {HiddenActivation::gelu_tanh, [](const Var& x) { return gelu(x, GeluForm::tanh); }}};
  for (const auto& [f, composed] : activations) {
    auto run = [&, f = f, composed = composed](bool fused) {
      Var x(test::randn({3, 40, 24}, 21).to(DType::F32), true);
      Var w(test::randn({16, 24}, 22).to(DType::F32), true), b(test::randn({16}, 23).to(DType::F32), true);
      const size_t before = tensor_bytes_live();
      Var y = fused ? activated_linear(x, f, w, b) : linear(composed(x), w, b);
      const size_t held = tensor_bytes_live() - before;  // the output, plus f(x) when composed
      const Var loss = sum_all(mul(y, y));
      backward(loss);
      return std::make_tuple(y.value().clone(), x.grad(), w.grad(), b.grad(), held);
    };
    const auto [y1, gx1, gw1, gb1, held1] = run(true);
    const auto [y2, gx2, gw2, gb2, held2] = run(false);
    CHECK(test::same_bits(y1, y2));
    CHECK(test::same_bits(gx1, gx2));
    CHECK(test::same_bits(gw1, gw2));
    CHECK(test::same_bits(gb1, gb2));
    CHECK(held1 == 3 * 40 * 16 * sizeof(float));
    CHECK(held2 == held1 + 3 * 40 * 24 * sizeof(float));
  }
}

// Gradient checks: softmax family, cross-entropy, dropout, reductions,
// pooling and the rotary rotation.
#include <cmath>
#include <limits>

#include "engine/ops.h"
#include "gradcheck_expect.h"

using namespace rotor;
using test::randn;
using Vars = std::vector<Var>;

GRADCHECK(OpKind::softmax, "softmax, plain and with an additive -inf mask") {
  CHECK_GRADIENTS(OpKind::softmax, [](const Vars& v) { return softmax(v[0]); }, {randn({3, 5}, 1)});
  const double inf = std::numeric_limits<double>::infinity();
  // mask [2, 1, 4] over x [2, 3, 4]: batch 0 hides key 3, batch 1 hides keys 1..3
  const Tensor mask = Tensor::from_doubles({2, 1, 4}, DType::F64, {0, 0, 0, -inf, 0, -inf, -inf, -inf});
  CHECK_GRADIENTS(OpKind::softmax, [&](const Vars& v) { return softmax(v[0], mask); }, {randn({2, 3, 4}, 2)});
  // a bias mask broadcast over the batch
  const Tensor bias = randn({3, 4}, 7);
  CHECK_GRADIENTS(OpKind::softmax, [&](const Vars& v) { return softmax(v[0], bias); }, {randn({2, 3, 4}, 3)});
}

TEST_CASE("softmax of a fully masked row is zero, and masked entries are exactly zero") {
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor mask = Tensor::from_doubles({2, 3}, DType::F64, {0, -inf, 0, -inf, -inf, -inf});
  Var y = softmax(Var(randn({2, 3}, 1)), mask);
  CHECK(y.value().at(1) == 0.0);
  CHECK(y.value().at(0) + y.value().at(2) == Approx(1.0));
  for (int i = 3; i < 6; ++i) CHECK(y.value().at(i) == 0.0);
}

GRADCHECK(OpKind::log_softmax, "log_softmax") {
  CHECK_GRADIENTS(OpKind::log_softmax, [](const Vars& v) { return log_softmax(v[0]); }, {randn({2, 3, 5}, 1, 3.0)});
}

GRADCHECK(OpKind::cross_entropy, "cross_entropy with ignore index and label smoothing") {
  const std::vector<int32_t> labels{2, 0, -100, 4};
  CHECK_GRADIENTS(OpKind::cross_entropy, [&](const Vars& v) { return cross_entropy(v[0], labels); },
                  {randn({4, 5}, 1)});
  CrossEntropyOptions smooth;
  smooth.label_smoothing = 0.1;
  CHECK_GRADIENTS(OpKind::cross_entropy, [&](const Vars& v) { return cross_entropy(v[0], labels, smooth); },
                  {randn({4, 5}, 2)});
}

TEST_CASE("cross_entropy equals the hand-computed value") {
  // logits [1, 2, 3], label 2: loss = log(e^1 + e^2 + e^3) - 3
  Var logits(Tensor::from_doubles({1, 3}, DType::F64, {1, 2, 3}));
  const double expected = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)) - 3.0;
  CHECK(cross_entropy(logits, {2}).value().item() == Approx(expected).epsilon(1e-14));
  CrossEntropyOptions smooth;
  smooth.label_smoothing = 0.3;  // q = 0.7 onehot + 0.1 everywhere
  const double lse = expected + 3.0;
  const double smoothed = 0.8 * (lse - 3.0) + 0.1 * (lse - 1.0) + 0.1 * (lse - 2.0);
  CHECK(cross_entropy(logits, {2}, smooth).value().item() == Approx(smoothed).epsilon(1e-14));
}

GRADCHECK(OpKind::dropout, "dropout with a fixed key") {
  const RandomKey key{42, stream_id("dropout-test"), 7};
  CHECK_GRADIENTS(OpKind::dropout, [&](const Vars& v) { return dropout(v[0], 0.3, key, true); }, {randn({6, 7}, 1)});
}

GRADCHECK(OpKind::sum, "sum over a dim, with and without keepdim") {
  CHECK_GRADIENTS(OpKind::sum, [](const Vars& v) { return sum(v[0], 1); }, {randn({2, 3, 4}, 1)});
  CHECK_GRADIENTS(OpKind::sum, [](const Vars& v) { return sum(v[0], -1, true); }, {randn({2, 3, 4}, 2)});
  CHECK_GRADIENTS(OpKind::sum, [](const Vars& v) { return sum(v[0], 0); }, {randn({3, 2}, 3)});
}

GRADCHECK(OpKind::mean, "mean over a dim") {
  CHECK_GRADIENTS(OpKind::mean, [](const Vars& v) { return mean(v[0], 1, true); }, {randn({2, 3, 4}, 1)});
  CHECK_GRADIENTS(OpKind::mean, [](const Vars& v) { return mean(v[0], 2); }, {randn({2, 3, 4}, 2)});
}

GRADCHECK(OpKind::masked_mean_pool, "masked mean pooling over valid tokens") {
  CHECK_GRADIENTS(OpKind::masked_mean_pool,
                  [](const Vars& v) {
                    return masked_mean_pool(v[0], {4, 2, 1});
                  },
                  {randn({3, 4, 5}, 1)});
}

GRADCHECK(OpKind::masked_max_pool, "masked max pooling over valid tokens") {
  CHECK_GRADIENTS(OpKind::masked_max_pool,
                  [](const Vars& v) {
                    return masked_max_pool(v[0], {4, 2, 1});
                  },
                  {randn({3, 4, 5}, 1)});
}

namespace {
// Angle tables for positions 0..N-1 with theta_i = base^(-2i/r).
std::pair<Tensor, Tensor> angles(int64_t N, int64_t r, double base, int64_t offset = 0) {
  std::vector<double> c, s;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t i = 0; i < r / 2; ++i) {
      const double a = static_cast<double>(n + offset) * std::pow(base, -2.0 * i / r);
      c.push_back(std::cos(a));
      s.push_back(std::sin(a));
    }
  return {Tensor::from_doubles({N, r / 2}, DType::F64, c), Tensor::from_doubles({N, r / 2}, DType::F64, s)};
}
}  // namespace

GRADCHECK(OpKind::rotary, "rotary rotation, both layouts, full and partial") {
  for (auto layout : {RotaryLayout::interleaved, RotaryLayout::half}) {
    // Pairs, not structured bindings: C++17 lambdas cannot capture those (clang refuses).
    const auto full = angles(5, 8, 10000.0, 99991);
    CHECK_GRADIENTS(OpKind::rotary, [&](const Vars& v) { return rotary(v[0], full.first, full.second, layout); },
                    {randn({2, 3, 5, 8}, 1)});
    const auto partial = angles(5, 4, 100.0);
    CHECK_GRADIENTS(OpKind::rotary, [&](const Vars& v) { return rotary(v[0], partial.first, partial.second, layout); },
                    {randn({2, 5, 8}, 2)});
  }
}

// Determinism: the same seed gives the same bits, and one thread gives the
// same bits as two. Inputs are large enough (>100k elements, or reductions
// over long dims) that every kernel splits its work into several chunks.
#include <catch2/catch.hpp>
#include <functional>
#include <vector>

#include "engine/ops.h"
#include "engine/optim/adam.h"
#include "engine/optim/clip.h"
#include "gradcheck.h"
#include "optim_fixtures.h"

using namespace rotor;
using test::same_bits;
using test::ThreadCountGuard;
using Vars = std::vector<Var>;

namespace {

// Runs `compute` with one thread and with two; every output must match bitwise.
void require_thread_independent(const std::function<std::vector<Tensor>()>& compute) {
  std::vector<Tensor> one, two;
  {
    ThreadCountGuard threads(1);
    one = compute();
  }
  {
    ThreadCountGuard threads(2);
    two = compute();
  }
  REQUIRE(one.size() == two.size());
  for (size_t i = 0; i < one.size(); ++i) {
    INFO("output " << i);
    CHECK(same_bits(one[i], two[i]));
  }
}

Tensor randn32(const Shape& shape, uint64_t seed) { return test::randn(shape, seed).to(DType::F32); }

// The float32 forward value of f, the loss sum(f(x) * r) for a fixed random r,
// and the gradient of every input.
std::vector<Tensor> value_and_grads(const std::function<Var(const Vars&)>& f, const std::vector<Shape>& shapes) {
  Vars inputs;
  for (size_t i = 0; i < shapes.size(); ++i) inputs.emplace_back(randn32(shapes[i], 10 + i), true);
  const Var y = f(inputs);
  const Var loss = sum_all(y * Var(randn32(y.shape(), 99)));
  backward(loss);
  std::vector<Tensor> out{y.value(), loss.value()};
  for (const Var& x : inputs) out.push_back(x.grad());
  return out;
}

std::function<std::vector<Tensor>()> graph(std::function<Var(const Vars&)> f, std::vector<Shape> shapes) {
  return [f = std::move(f), shapes = std::move(shapes)] { return value_and_grads(f, shapes); };
}

}  // namespace

TEST_CASE("the same seed gives the same bits") {
  ParameterStore a, b, c;
  test::make_large_store(a, 42);
  test::make_large_store(b, 42);
  test::make_large_store(c, 43);
  CHECK(same_bits(a.values(), b.values()));
  CHECK_FALSE(same_bits(a.values(), c.values()));

  const RandomKey key{42, stream_id("dropout.attention"), 3};
  const Var x(randn32({500, 400}, 1));
  CHECK(same_bits(dropout(x, 0.1, key, true).value(), dropout(x, 0.1, key, true).value()));
  const RandomKey next_step{42, stream_id("dropout.attention"), 4};
  CHECK_FALSE(same_bits(dropout(x, 0.1, key, true).value(), dropout(x, 0.1, next_step, true).value()));
}

TEST_CASE("1 and 2 threads agree: elementwise ops with broadcasting") {
  // b [300] broadcasts over 400 rows, so its gradient is a reduction too.
  require_thread_independent(
      graph([](const Vars& v) { return gelu(v[0] * v[1] + exp(mul_scalar(v[0], 0.1))) / add_scalar(exp(v[1]), 1.0); },
            {{400, 300}, {300}}));
  require_thread_independent(
      graph([](const Vars& v) { return tanh(v[0]) - relu(v[1]) * elu(v[0]); }, {{400, 300}, {400, 1}}));
}

TEST_CASE("1 and 2 threads agree: sum and mean over long dims") {
  require_thread_independent(graph([](const Vars& v) { return sum(v[0], 0); }, {{600, 400}}));
  require_thread_independent(graph([](const Vars& v) { return mean(v[0], 1, true); }, {{600, 400}}));
  require_thread_independent(graph([](const Vars& v) { return sum_all(v[0]); }, {{600, 400}}));
}

TEST_CASE("1 and 2 threads agree: softmax, log-softmax and cross-entropy") {
  const Tensor mask = randn32({512}, 5);
  require_thread_independent(graph([&](const Vars& v) { return softmax(v[0], mask); }, {{256, 512}}));
  require_thread_independent(graph([](const Vars& v) { return log_softmax(v[0]); }, {{256, 512}}));
  std::vector<int32_t> labels(2048);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int32_t>((i * 37) % 100);
  require_thread_independent(graph([&](const Vars& v) { return cross_entropy(v[0], labels); }, {{2048, 100}}));
}

TEST_CASE("1 and 2 threads agree: layer_norm backward into weight and bias") {
  // dw and db sum over 4096 rows.
  require_thread_independent(
      graph([](const Vars& v) { return layer_norm(v[0], v[1], v[2]); }, {{4096, 64}, {64}, {64}}));
}

TEST_CASE("1 and 2 threads agree: dropout masks") {
  const RandomKey key{7, stream_id("dropout.mlp"), 12};
  require_thread_independent(graph([&](const Vars& v) { return dropout(v[0], 0.1, key, true); }, {{500, 400}}));
}

TEST_CASE("dropout with p = 0.1 keeps about 90% and preserves the mean") {
  const int64_t n = 200000;
  const Var ones(Tensor::full({n}, DType::F32, 1.0));
  const Tensor y = dropout(ones, 0.1, RandomKey{3, stream_id("dropout.stats"), 0}, true).value();
  const float* p = y.data<float>();
  const float survivor = static_cast<float>(1.0 / 0.9);  // scaled by 1 / (1 - p)
  int64_t kept = 0, other = 0;
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    kept += p[i] == survivor;
    other += p[i] != survivor && p[i] != 0.0f;
    total += p[i];
  }
  CHECK(other == 0);
  // Binomial(200000, 0.9): std of the kept fraction is 0.00067; allow ~7 sigma.
  CHECK(static_cast<double>(kept) / n == Approx(0.9).margin(0.005));
  CHECK(total / n == Approx(1.0).margin(0.006));
}

TEST_CASE("1 and 2 threads agree: embedding backward with many repeated ids") {
  // 40000 lookups into 50 rows: every row is hit ~800 times.
  std::vector<int32_t> ids(40000);
  const RandomKey key{1, stream_id("ids"), 0};
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(key.below(i, 50));
  require_thread_independent(graph([&](const Vars& v) { return embedding(v[0], ids, {200, 200}); }, {{50, 64}}));
}

TEST_CASE("1 and 2 threads agree: matmul, batched matmul and linear") {
  require_thread_independent(graph([](const Vars& v) { return matmul(v[0], v[1]); }, {{256, 512}, {512, 384}}));
  require_thread_independent(
      graph([](const Vars& v) { return matmul(v[0], v[1], true, true); }, {{512, 256}, {384, 512}}));
  require_thread_independent(graph([](const Vars& v) { return matmul(v[0], v[1]); }, {{4, 128, 256}, {256, 192}}));
  require_thread_independent(
      graph([](const Vars& v) { return linear(v[0], v[1], v[2]); }, {{1024, 256}, {512, 256}, {512}}));
  // A lone tile (M, N <= 128) big enough for BLAS to want threads of its own.
  require_thread_independent(graph([](const Vars& v) { return matmul(v[0], v[1]); }, {{96, 700}, {700, 128}}));
}

TEST_CASE("1 and 2 threads agree: gradient clipping and the AdamW update") {
  require_thread_independent([] {
    ParameterStore store;
    test::make_large_store(store, 1);
    test::fill_random_grads(store, 2, 1);
    const double norm = clip_grad_norm(store, 0.5);
    AdamOptions options;
    options.weight_decay = 0.1;
    AdamW adamw(store, options);
    adamw.step(1e-3);
    return std::vector<Tensor>{Tensor::scalar(DType::F64, norm), store.grads(), store.values()};
  });
}

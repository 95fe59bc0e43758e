// Global-norm gradient clipping and the finiteness check.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "engine/error.h"
#include "engine/optim/clip.h"
#include "optim_fixtures.h"

using namespace rotor;
using test::make_wb_store;
using test::set_grads;

TEST_CASE("clip_grad_norm scales by max_norm / (norm + 1e-6) over all parameters") {
  ParameterStore store(DType::F64);
  make_wb_store(store, {0, 0, 0});
  // Gradients [3, 0 | 4] span both parameters: norm sqrt(9 + 16) = 5.
  // max_norm 1: factor 1 / 5.000001 = 0.19999996..., so [0.59999988..., 0, 0.79999984...]
  set_grads(store, {3.0, 0.0, 4.0});
  CHECK(clip_grad_norm(store, 1.0) == 5.0);
  const std::vector<double> g = store.grads().to_doubles();
  CHECK(g[0] == Approx(3.0 / 5.000001).epsilon(1e-15));
  CHECK(g[1] == 0.0);
  CHECK(g[2] == Approx(4.0 / 5.000001).epsilon(1e-15));
}

TEST_CASE("clip_grad_norm leaves small gradients alone and follows PyTorch at the boundary") {
  ParameterStore store(DType::F64);
  make_wb_store(store, {0, 0, 0});
  set_grads(store, {0.3, 0.0, 0.4});  // norm 0.5
  CHECK(clip_grad_norm(store, 2.0) == Approx(0.5));
  CHECK(store.grads().to_doubles() == std::vector<double>{0.3, 0.0, 0.4});
  // norm == max_norm: PyTorch still scales by 0.5 / 0.500001.
  CHECK(clip_grad_norm(store, 0.5) == Approx(0.5));
  CHECK(store.grads().at(2) == Approx(0.4 * 0.5 / 0.500001).epsilon(1e-15));
  CHECK(store.grads().at(2) < 0.4);
}

TEST_CASE("clip_grad_norm accumulates float32 gradients in double") {
  ParameterStore store;
  test::make_large_store(store, 3);
  test::fill_random_grads(store, 4, 1);
  const float* g = store.grads().data<float>();
  double sum = 0;
  for (int64_t i = 0; i < store.total_size(); ++i) sum += static_cast<double>(g[i]) * g[i];
  const double norm = clip_grad_norm(store, 1.0);
  CHECK(norm == Approx(std::sqrt(sum)).epsilon(1e-12));
  double clipped = 0;
  for (int64_t i = 0; i < store.total_size(); ++i) clipped += static_cast<double>(g[i]) * g[i];
  CHECK(std::sqrt(clipped) == Approx(1.0).epsilon(1e-6));
}

TEST_CASE("a non-finite gradient norm is returned and nothing is scaled") {
  ParameterStore store(DType::F64);
  make_wb_store(store, {0, 0, 0});
  set_grads(store, {3.0, std::numeric_limits<double>::infinity(), 4.0});
  CHECK(std::isinf(clip_grad_norm(store, 1.0)));
  CHECK(store.grads().at(0) == 3.0);
  set_grads(store, {3.0, std::nan(""), 4.0});
  CHECK(std::isnan(clip_grad_norm(store, 1.0)));
  CHECK(store.grads().at(2) == 4.0);
  CHECK_THROWS_WITH(clip_grad_norm(store, 0.0), Catch::Contains("max_norm"));
}

TEST_CASE("all_finite finds a single bad element anywhere in a large tensor") {
  Tensor t = Tensor::full({200000}, DType::F32, 1.0);
  CHECK(all_finite(t));
  CHECK(all_finite(Tensor::zeros({0}, DType::F64)));
  t.data<float>()[123457] = std::numeric_limits<float>::infinity();
  CHECK_FALSE(all_finite(t));
  t.data<float>()[123457] = std::numeric_limits<float>::quiet_NaN();
  CHECK_FALSE(all_finite(t));
}

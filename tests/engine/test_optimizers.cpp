// Optimizers against hand-computed steps. All use a float64 store with
// w = [w0, w1] (weight decay on) and b = [b0] (weight decay off); b0 receives
// the same gradients as w0, so any difference between them is weight decay.
// torch 1.13 (torch.optim.AdamW / Adam / SGD, with b in a weight_decay=0
// parameter group) reproduces every expected value below.
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/error.h"
#include "engine/optim/adam.h"
#include "engine/optim/sgd.h"
#include "optim_fixtures.h"

using namespace rotor;
using test::make_wb_store;
using test::set_grads;

namespace {

void check_values(const ParameterStore& store, const std::vector<double>& expected) {
  const std::vector<double> got = store.values().to_doubles();
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(expected[i]).epsilon(1e-13));
  }
}

// The hand-computed Adam steps' options: eps is large so that misplacing it
// would show, and the betas make the bias corrections round numbers.
AdamOptions hand_options() {
  AdamOptions options;
  options.beta1 = 0.5;
  options.beta2 = 0.75;
  options.eps = 0.25;
  options.weight_decay = 0.5;
  return options;
}

}  // namespace

TEST_CASE("AdamW matches three hand-computed steps") {
  // lr 0.1, beta1 0.5, beta2 0.75, eps 0.25, weight_decay 0.5: decayed
  // parameters shrink by 1 - 0.1 * 0.5 = 0.95 before each update. Per element:
  //   m = 0.5 m + 0.5 g;  v = 0.75 v + 0.25 g^2
  //   p -= lr / (1 - 0.5^t) * m / (sqrt(v) / sqrt(1 - 0.75^t) + eps)
  ParameterStore store(DType::F64);
  make_wb_store(store, {1.0, -2.0, 1.0});
  AdamW adamw(store, hand_options());

  // Step 1: g = [0.4, -0.2 | 0.4]; step size 0.1 / 0.5 = 0.2, sqrt(1 - 0.75) = 0.5
  //   w0: 1.0 * 0.95 = 0.95;  m = 0.2,  v = 0.04,  denom = 0.2 / 0.5 + 0.25 = 0.65
  //       0.95 - 0.2 * 0.2 / 0.65 = 0.95 - 0.0615384615... = 0.8884615384615...
  //   w1: -2.0 * 0.95 = -1.9; m = -0.1, v = 0.01,  denom = 0.1 / 0.5 + 0.25 = 0.45
  //       -1.9 + 0.2 * 0.1 / 0.45 = -1.9 + 0.0444... = -1.8555555555555...
  //   b0: no decay: 1.0 - 0.0615384615... = 0.9384615384615...
  set_grads(store, {0.4, -0.2, 0.4});
  adamw.step(0.1);
  check_values(store, {0.888461538461538461, -1.855555555555555556, 0.938461538461538462});

  // Step 2: g = [-0.2, 0.6 | -0.2]; step size 0.1 / 0.75 = 0.13333..., sqrt(1 - 0.5625) = 0.6614378277661...
  //   w0: 0.888461538... * 0.95 = 0.8440384615...;  m = 0.5 * 0.2 + 0.5 * (-0.2) = 0, so no Adam move
  //   w1: -1.855555... * 0.95 = -1.7627777...;  m = -0.05 + 0.3 = 0.25,  v = 0.0075 + 0.09 = 0.0975
  //       denom = sqrt(0.0975) / 0.6614378... + 0.25 = 0.7220774754816...
  //       -1.7627777... - 0.13333... * 0.25 / 0.72207747... = -1.7627777... - 0.0461630980956... = -1.8089408758734...
  //   b0: m = 0, unchanged at 0.9384615384615...
  set_grads(store, {-0.2, 0.6, -0.2});
  adamw.step(0.1);
  check_values(store, {0.844038461538461538, -1.808940875873447005, 0.938461538461538462});

  // Step 3: g = [0.2, 0.2 | 0.2]; step size 0.1 / 0.875 = 0.1142857..., sqrt(1 - 0.421875) = 0.7603453162872...
  //   w0: 0.8440384615... * 0.95 = 0.8018365384...;  m = 0 + 0.1 = 0.1,  v = 0.03 + 0.01 = 0.04
  //       denom = 0.2 / 0.76034531... + 0.25 = 0.5130383796885...
  //       0.8018365384... - 0.1142857... * 0.1 / 0.51303837... = 0.8018365384... - 0.0222762504... = 0.7795602880...
  //   w1: -1.8089408758... * 0.95 = -1.7184938320...;  m = 0.125 + 0.1 = 0.225,  v = 0.073125 + 0.01 = 0.083125
  //       denom = sqrt(0.083125) / 0.76034531... + 0.25 = 0.6291883223199...
  //       -1.7184938320... - 0.1142857... * 0.225 / 0.629188322... = -1.718493832... - 0.040868981... = -1.759362813...
  //   b0: same moments as w0, no decay: 0.9384615384... - 0.0222762504347... = 0.9161852880268...
  set_grads(store, {0.2, 0.2, 0.2});
  adamw.step(0.1);
  check_values(store, {0.779560288026807079, -1.759362813276808924, 0.916185288026807079});
  CHECK(adamw.steps_taken() == 3);
}

TEST_CASE("Adam adds L2 decay to the gradient: one hand-computed step") {
  // lr 0.1, beta1 0.5, beta2 0.75, eps 0.25, weight_decay 0.5, g = [0.4, -0.2 | 0.4]
  //   w: g' = g + 0.5 p = [0.4 + 0.5, -0.2 - 1.0] = [0.9, -1.2]
  //      m = 0.5 g' = [0.45, -0.6],  v = 0.25 g'^2 = [0.2025, 0.36]
  //      denom = sqrt(v) / 0.5 + 0.25 = [1.15, 1.45],  step size 0.1 / 0.5 = 0.2
  //      w0 = 1.0 - 0.2 * 0.45 / 1.15 = 1.0 - 0.0782608695652... = 0.9217391304347...
  //      w1 = -2.0 + 0.2 * 0.6 / 1.45 = -2.0 + 0.0827586206896... = -1.9172413793103...
  //   b: no decay, as in AdamW's first step: 0.9384615384615...
  ParameterStore store(DType::F64);
  make_wb_store(store, {1.0, -2.0, 1.0});
  Adam adam(store, hand_options());
  set_grads(store, {0.4, -0.2, 0.4});
  adam.step(0.1);
  check_values(store, {0.921739130434782609, -1.917241379310344828, 0.938461538461538462});
}

TEST_CASE("SGD with momentum matches two hand-computed steps") {
  // lr 0.1, momentum 0.5, weight_decay 0.5; start w = [1, -2], b = [0.5]
  ParameterStore store(DType::F64);
  make_wb_store(store, {1.0, -2.0, 0.5});
  SgdOptions options;
  options.momentum = 0.5;
  options.weight_decay = 0.5;

  SECTION("heavy ball") {
    Sgd sgd(store, options);
    // Step 1: g = [0.4, -0.2 | 0.4]
    //   w: d = g + 0.5 p = [0.9, -1.2];  buf = d;  w = [1 - 0.09, -2 + 0.12] = [0.91, -1.88]
    //   b: d = 0.4;  buf = 0.4;  b = 0.5 - 0.04 = 0.46
    set_grads(store, {0.4, -0.2, 0.4});
    sgd.step(0.1);
    check_values(store, {0.91, -1.88, 0.46});
    // Step 2: g = [-0.2, 0.6 | -0.2]
    //   w: d = [-0.2 + 0.455, 0.6 - 0.94] = [0.255, -0.34]
    //      buf = 0.5 [0.9, -1.2] + d = [0.705, -0.94];  w = [0.91 - 0.0705, -1.88 + 0.094] = [0.8395, -1.786]
    //   b: buf = 0.2 - 0.2 = 0, b stays 0.46
    set_grads(store, {-0.2, 0.6, -0.2});
    sgd.step(0.1);
    check_values(store, {0.8395, -1.786, 0.46});
  }

  SECTION("Nesterov") {
    options.nesterov = true;
    Sgd sgd(store, options);
    // Step 1: d = [0.9, -1.2], buf = d, step = d + 0.5 buf = [1.35, -1.8]  -> w = [0.865, -1.82]
    //         b: d = 0.4, buf = 0.4, step = 0.6 -> b = 0.44
    set_grads(store, {0.4, -0.2, 0.4});
    sgd.step(0.1);
    check_values(store, {0.865, -1.82, 0.44});
    // Step 2: d = g + 0.5 w = [-0.2 + 0.4325, 0.6 - 0.91] = [0.2325, -0.31]
    //         buf = 0.5 [0.9, -1.2] + d = [0.6825, -0.91]; step = d + 0.5 buf = [0.57375, -0.765]
    //         w = [0.865 - 0.057375, -1.82 + 0.0765] = [0.807625, -1.7435]
    //         b: buf = 0.2 - 0.2 = 0, step = -0.2 -> b = 0.44 + 0.02 = 0.46
    set_grads(store, {-0.2, 0.6, -0.2});
    sgd.step(0.1);
    check_values(store, {0.807625, -1.7435, 0.46});
  }
}

TEST_CASE("plain SGD is p -= lr * g") {
  ParameterStore store(DType::F64);
  make_wb_store(store, {1.0, -2.0, 0.5});
  Sgd sgd(store);
  set_grads(store, {0.4, -0.2, 1.0});
  sgd.step(0.5);
  check_values(store, {0.8, -1.9, 0.0});
  CHECK(sgd.export_state().tensors.empty());
}

TEST_CASE("optimizer options and learning rates are validated") {
  ParameterStore store(DType::F64);
  make_wb_store(store, {1.0, -2.0, 0.5});
  AdamOptions bad_beta;
  bad_beta.beta2 = 1.0;
  CHECK_THROWS_WITH(AdamW(store, bad_beta), Catch::Contains("beta2"));
  AdamOptions bad_eps;
  bad_eps.eps = 0.0;
  CHECK_THROWS_WITH(Adam(store, bad_eps), Catch::Contains("eps"));
  SgdOptions nesterov_without_momentum;
  nesterov_without_momentum.nesterov = true;
  CHECK_THROWS_WITH(Sgd(store, nesterov_without_momentum), Catch::Contains("nesterov"));
  SgdOptions negative_decay;
  negative_decay.weight_decay = -1;
  CHECK_THROWS_WITH(Sgd(store, negative_decay), Catch::Contains("weight_decay"));

  AdamW adamw(store);
  CHECK_THROWS_AS(adamw.step(-0.1), ValueError);
  CHECK_THROWS_WITH(adamw.step(std::nan("")), Catch::Contains("AdamW.step: lr"));

  ParameterStore unallocated;
  unallocated.declare("w", {2}, ParameterInit::zeros());
  CHECK_THROWS_WITH(Sgd(unallocated), Catch::Contains("allocated"));
}

// Checkpointing optimizer state: export after some steps, restore into a
// fresh optimizer and parameters, and the continuation must be bit-identical
// to the uninterrupted run.
#include <catch2/catch.hpp>
#include <functional>
#include <memory>

#include "engine/error.h"
#include "engine/optim/adam.h"
#include "engine/optim/lr_schedule.h"
#include "engine/optim/sgd.h"
#include "optim_fixtures.h"

using namespace rotor;
using test::fill_random_grads;
using test::make_large_store;
using test::same_bits;

namespace {

using OptimizerFactory = std::function<std::unique_ptr<Optimizer>(ParameterStore&)>;

constexpr uint64_t kGradSeed = 11;

void run_steps(ParameterStore& store, Optimizer& optimizer, const LrSchedule& schedule, int64_t first, int64_t last) {
  for (int64_t t = first; t <= last; ++t) {
    fill_random_grads(store, kGradSeed, static_cast<uint64_t>(t));
    optimizer.step(schedule.lr_at(t));
  }
}

void check_round_trip(const OptimizerFactory& make) {
  const LrSchedule schedule = LrSchedule::linear_warmup_cosine(1e-2, 2, 10);

  // Uninterrupted: 5 steps, with a checkpoint after step 3.
  ParameterStore store;
  make_large_store(store, 5);
  std::unique_ptr<Optimizer> optimizer = make(store);
  run_steps(store, *optimizer, schedule, 1, 3);
  const OptimizerState checkpoint = optimizer->export_state();
  const Tensor values_at_checkpoint = store.values().clone();
  run_steps(store, *optimizer, schedule, 4, 5);

  // Resumed: different initial values, overwritten by the checkpoint.
  ParameterStore resumed_store;
  make_large_store(resumed_store, 99);
  resumed_store.values().copy_from(values_at_checkpoint);
  std::unique_ptr<Optimizer> resumed = make(resumed_store);
  resumed->import_state(checkpoint);
  run_steps(resumed_store, *resumed, schedule, 4, 5);

  CHECK(same_bits(store.values(), resumed_store.values()));
  const OptimizerState a = optimizer->export_state(), b = resumed->export_state();
  REQUIRE(a.tensors.size() == b.tensors.size());
  for (const auto& [key, tensor] : a.tensors) {
    INFO(key);
    CHECK(same_bits(tensor, b.tensors.at(key)));
  }
  CHECK(a.scalars == b.scalars);
}

// A large float32 store and an AdamW that has taken one step on it.
struct SteppedAdamW {
  ParameterStore store;
  AdamW adamw;
  SteppedAdamW() : adamw(allocated(store)) {
    fill_random_grads(store, kGradSeed, 1);
    adamw.step(1e-3);
  }
  static ParameterStore& allocated(ParameterStore& s) {
    make_large_store(s, 5);
    return s;
  }
};

}  // namespace

TEST_CASE("AdamW state round trip continues bit-identically") {
  AdamOptions options;
  options.weight_decay = 0.1;
  check_round_trip([&](ParameterStore& s) { return std::make_unique<AdamW>(s, options); });
}

TEST_CASE("Adam state round trip continues bit-identically") {
  AdamOptions options;
  options.weight_decay = 0.1;
  check_round_trip([&](ParameterStore& s) { return std::make_unique<Adam>(s, options); });
}

TEST_CASE("SGD momentum state round trip continues bit-identically") {
  SgdOptions options;
  options.momentum = 0.9;
  options.nesterov = true;
  options.weight_decay = 1e-3;
  check_round_trip([&](ParameterStore& s) { return std::make_unique<Sgd>(s, options); });
}

TEST_CASE("exported state is keyed by slot and parameter name") {
  SteppedAdamW stepped;
  const ParameterStore& store = stepped.store;
  const OptimizerState state = stepped.adamw.export_state();
  CHECK(state.scalars == std::map<std::string, double>{{"step", 1.0}});
  CHECK(state.tensors.size() == 2 * store.infos().size());
  const Tensor& m = state.tensors.at("m/fc.weight");
  CHECK(m.shape() == Shape{256, 384});
  CHECK_FALSE(m.shares_storage(store.values()));
  CHECK(state.tensors.count("v/norm.gain") == 1);
}

TEST_CASE("import_state names the bad entry and leaves the optimizer unchanged") {
  SteppedAdamW stepped;
  AdamW& adamw = stepped.adamw;
  const OptimizerState good = adamw.export_state();

  OptimizerState missing = good;
  missing.tensors.erase("v/fc.bias");
  CHECK_THROWS_WITH(adamw.import_state(missing), Catch::Contains("missing tensor 'v/fc.bias'"));

  OptimizerState wrong_shape = good;
  wrong_shape.tensors["m/fc.bias"] = Tensor::zeros({255}, DType::F32);
  CHECK_THROWS_WITH(adamw.import_state(wrong_shape), Catch::Contains("'m/fc.bias' is [255] float32, expected [256]"));

  OptimizerState wrong_dtype = good;
  wrong_dtype.tensors["m/fc.bias"] = Tensor::zeros({256}, DType::F64);
  CHECK_THROWS_WITH(adamw.import_state(wrong_dtype), Catch::Contains("'m/fc.bias' is [256] float64"));

  OptimizerState extra = good;
  extra.tensors["momentum/fc.bias"] = Tensor::zeros({256}, DType::F32);
  CHECK_THROWS_WITH(adamw.import_state(extra), Catch::Contains("unexpected tensor 'momentum/fc.bias'"));

  OptimizerState no_step = good;
  no_step.scalars.clear();
  CHECK_THROWS_WITH(adamw.import_state(no_step), Catch::Contains("missing scalar 'step'"));

  OptimizerState fractional_step = good;
  fractional_step.scalars["step"] = 2.5;
  fractional_step.tensors["m/fc.bias"] = Tensor::full({256}, DType::F32, 7.0);  // valid, but must not land
  CHECK_THROWS_WITH(adamw.import_state(fractional_step), Catch::Contains("'step'"));

  // Nothing above was applied.
  CHECK(adamw.steps_taken() == 1);
  const OptimizerState after = adamw.export_state();
  for (const auto& [key, tensor] : good.tensors) {
    INFO(key);
    CHECK(same_bits(tensor, after.tensors.at(key)));
  }

  Sgd sgd(stepped.store);  // no momentum: no state at all
  CHECK_THROWS_WITH(sgd.import_state(good), Catch::Contains("Sgd.import_state: unexpected tensor"));
}

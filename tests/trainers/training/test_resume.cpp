// Resuming from a checkpoint must give exactly the run that was never
// interrupted: every metrics line and every parameter and optimizer bit.
#include <catch2/catch.hpp>
#include <cstring>

#include "storage/checkpoint.h"
#include "tests/trainers/training/run_fixture.h"
#include "trainers/config/config.h"
#include "trainers/training/trainer.h"

using namespace rotor;

namespace {

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.dtype() == DType::F32 ? static_cast<const void*>(a.data<float>()) : a.data<double>(),
                     b.dtype() == DType::F32 ? static_cast<const void*>(b.data<float>()) : b.data<double>(),
                     static_cast<size_t>(a.numel()) * dtype_size(a.dtype())) == 0;
}

// Trains `config` straight through and stopped at step 12 then resumed; both
// must give the same metrics and the same bits in the final checkpoint.
void check_resume_is_bit_identical(const std::filesystem::path& dir, const std::string& config,
                                   const std::vector<std::string>& overrides) {
  TrainRequest straight{config, overrides, "", (dir / "straight").string()};
  REQUIRE(train(straight) == 0);

  TrainRequest first_half{config, overrides, "", (dir / "resumed").string()};
  first_half.stop_after = 12;
  REQUIRE(train(first_half) == 0);
  REQUIRE(std::filesystem::exists(dir / "resumed" / "checkpoints" / "step-00000012.h5"));
  REQUIRE_FALSE(std::filesystem::exists(dir / "resumed" / "summary.json"));
  TrainRequest second_half{config, overrides, "auto", (dir / "resumed").string()};
  REQUIRE(train(second_half) == 0);

  const auto a = test::deterministic_metrics(dir / "straight");
  const auto b = test::deterministic_metrics(dir / "resumed");
  REQUIRE(a.size() > 10);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("metrics line " << i + 1);
    CHECK(a[i] == b[i]);
  }

  const auto ca = read_checkpoint((dir / "straight" / "checkpoints" / "step-00000024.h5").string());
  const auto cb = read_checkpoint((dir / "resumed" / "checkpoints" / "step-00000024.h5").string());
  REQUIRE(ca.tensors.size() == cb.tensors.size());
  for (const auto& [key, t] : ca.tensors) {
    INFO(key);
    REQUIRE(cb.tensors.count(key));
    CHECK(same_bits(t, cb.tensors.at(key)));
  }
  for (const auto& [key, v] : ca.integers) {
    INFO(key);
    CHECK(cb.integers.at(key) == v);
  }
  CHECK(ca.texts.at("config") == cb.texts.at("config"));
}

}  // namespace

TEST_CASE("a resumed run is bit-identical to the uninterrupted run", "[resume]") {
  const auto dir = test::fresh_dir("resume");
  check_resume_is_bit_identical(dir, test::tiny_run_config(dir), {});
}

// The positions are a pure function of (seed, step): a resumed run draws the ones the straight run drew.
TEST_CASE("a resumed run with randomized positions is bit-identical to the uninterrupted run", "[resume]") {
  const auto dir = test::fresh_dir("resume-randomized");
  const std::string config = test::tiny_run_config(dir);
  check_resume_is_bit_identical(dir, config, {"model.position.randomized=true", "model.position.max_positions=256"});
  // and the draw is in play: the same run with positions 0..N-1 trains differently
  TrainRequest plain{config, {}, "", (dir / "plain").string()};
  REQUIRE(train(plain) == 0);
  CHECK(test::deterministic_metrics(dir / "plain") != test::deterministic_metrics(dir / "straight"));
}

// A causal LM's blocks are shuffled per epoch like documents: the sampler state restores them.
TEST_CASE("a resumed causal language model run is bit-identical to the uninterrupted run", "[resume][clm]") {
  const auto dir = test::fresh_dir("resume-clm");
  check_resume_is_bit_identical(dir, test::tiny_run_config(dir), {"train.objective=clm"});
  const std::string summary = test::read_text(dir / "straight" / "summary.json");
  CHECK_THAT(summary, Catch::Contains("\"test\":{\"loss\":") && Catch::Contains("\"perplexity\":"));
  CHECK_THAT(summary, Catch::Contains("\"best_metric\":\"loss\""));
}

// A masked LM's masks are keyed by (data.seed, epoch, stream position): the resumed run redraws them exactly,
// with blocks cut across documents or within each.
TEST_CASE("a resumed masked language model run is bit-identical to the uninterrupted run", "[resume][mlm]") {
  const std::string packing = GENERATE(as<std::string>{}, "stream", "document");
  const auto dir = test::fresh_dir("resume-mlm-" + packing);
  check_resume_is_bit_identical(dir, test::tiny_run_config(dir),
                                {"train.objective=mlm", "train.mask_probability=0.2", "data.lm_blocks=" + packing});
  const std::string summary = test::read_text(dir / "straight" / "summary.json");
  CHECK_THAT(summary, Catch::Contains("\"test\":{\"loss\":") && Catch::Contains("\"perplexity\":"));
  CHECK_THAT(summary, Catch::Contains("\"best_metric\":\"loss\""));
}

// bf16 products are a function of the inputs alone (fixed tiles, fixed accumulation order).
TEST_CASE("a resumed bf16 run is bit-identical to the uninterrupted run", "[resume][bf16]") {
  const auto dir = test::fresh_dir("resume-bf16");
  const std::string objective = GENERATE(as<std::string>{}, "classify", "clm");
  check_resume_is_bit_identical(dir / objective, test::tiny_run_config(dir),
                                {"run.precision=bf16", "train.objective=" + objective});
}

TEST_CASE("resuming with a changed model or data config is refused, listing the keys", "[resume]") {
  const auto dir = test::fresh_dir("resume-changed");
  const std::string config = test::tiny_run_config(dir);
  TrainRequest first{config, {}, "", (dir / "run").string()};
  first.stop_after = 4;
  REQUIRE(train(first) == 0);

  TrainRequest changed{config, {"train.lr=0.5", "model.position.type=alibi"}, "auto", (dir / "run").string()};
  try {
    train(changed);
    FAIL("resume with a changed config was accepted");
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("train.lr") != std::string::npos);
    CHECK(msg.find("model.position.type") != std::string::npos);
  }
  // Run-length changes are fine.
  TrainRequest longer{config, {"train.max_steps=8"}, "auto", (dir / "run").string()};
  CHECK(train(longer) == 0);
}

TEST_CASE("a new run refuses a run directory that already has checkpoints", "[resume]") {
  const auto dir = test::fresh_dir("resume-exists");
  const std::string config = test::tiny_run_config(dir);
  TrainRequest first{config, {}, "", (dir / "run").string()};
  first.stop_after = 4;
  REQUIRE(train(first) == 0);
  TrainRequest again{config, {}, "", (dir / "run").string()};
  CHECK_THROWS_WITH(train(again), Catch::Contains("--resume auto"));
}

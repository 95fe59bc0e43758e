// The training-memory estimate against peak RSS measured by the benchmark
// (bench/README.md): config S (d 256, 4 layers, d_ff 1024, 16 x 512 tokens)
// peaked at ~1.0 GiB with fused attention and ~1.85 GB with the composed one.
#include <catch2/catch.hpp>

#include "models/encoder_classifier.h"
#include "trainers/training/memory_estimate.h"

using namespace rotor;

namespace {

Config config_s(AttentionKernel kernel) {
  Config c;
  c.model.d_model = 256;
  c.model.layers = 4;
  c.model.heads = 4;
  c.model.d_ff = 1024;
  c.model.attention_kernel = kernel;
  c.data.max_len = 512;
  c.data.batch_size = 16;
  return c;
}

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

TEST_CASE("memory estimate: within the measured peak RSS of config S", "[memory]") {
  const int64_t parameters = 3'300'000;  // byte vocabulary, d 256, 4 layers
  const MemoryEstimate fused = estimate_training_memory(config_s(AttentionKernel::fused), parameters);
  CHECK(fused.batch_tokens == 16 * 512);
  CHECK(fused.total() / GiB > 0.8);
  CHECK(fused.total() / GiB < 1.3);
  const MemoryEstimate composed = estimate_training_memory(config_s(AttentionKernel::composed), parameters);
  CHECK(composed.total() / GiB > 1.5);
  CHECK(composed.total() / GiB < 2.5);
}

TEST_CASE("memory estimate: a config larger than the machine is refused with its numbers", "[memory]") {
  Config c = config_s(AttentionKernel::fused);
  const MemoryEstimate huge = estimate_training_memory(c, int64_t{1} << 40);  // 16 TiB of parameter state
  CHECK_THROWS_WITH(check_fits_in_memory(huge), Catch::Matchers::Contains("this config needs about") &&
                                                    Catch::Matchers::Contains("lower model.d_model"));
  CHECK_NOTHROW(check_fits_in_memory(estimate_training_memory(c, 1000)));
}

TEST_CASE("memory estimate: the weight count from the config is a close lower bound of the built model's", "[memory]") {
  for (const std::string position : {"rope", "learned"}) {
    Config c = config_s(AttentionKernel::fused);
    c.model.position.type = position;
    c.model.position.set("max_len", 512);
    const double built = static_cast<double>(EncoderClassifier(c.model, DType::F32).parameters().total_size());
    INFO(position << ": " << weight_count(c.model) << " of " << built);
    CHECK(weight_count(c.model) <= built);
    CHECK(weight_count(c.model) > 0.95 * built);
  }
}

TEST_CASE("memory estimate: absurd layer and gradient-group counts are refused from the config alone", "[memory]") {
  Config c = config_s(AttentionKernel::fused);
  c.model.layers = 1'000'000'000;  // declaring its parameters took a minute and 5 GB
  CHECK_THROWS_WITH(check_fits_in_memory(estimate_training_memory(c, weight_count(c.model))),
                    Catch::Matchers::Contains("lower model.d_model, model.layers"));
  c.model.layers = 1;
  c.train.gradient_groups = 1'000'000'000'000;  // a gradient copy per group: 8 GB allocated before bad_alloc
  const MemoryEstimate groups = estimate_training_memory(c, weight_count(c.model), 2);
  CHECK(groups.local_groups == 500'000'000'000);
  CHECK(groups.group_gradient_bytes == 4.0 * weight_count(c.model) * 500'000'000'000.0);
  CHECK_THROWS_WITH(check_fits_in_memory(groups),
                    Catch::Matchers::Contains("a gradient copy for each of 500000000000 gradient groups") &&
                        Catch::Matchers::EndsWith("or train.gradient_groups"));
  c.train.gradient_groups = 2;  // one group per rank: no copies
  CHECK(estimate_training_memory(c, 1000, 2).group_gradient_bytes == 0);
}

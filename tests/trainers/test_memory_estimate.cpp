// The training-memory estimate against peak RSS measured by the benchmark
// (bench/README.md): config S (d 256, 4 layers, d_ff 1024, 16 x 512 tokens)
// peaked at ~1.0 GiB with fused attention and ~1.85 GB with the composed one.
#include <catch2/catch.hpp>

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

// The probabilities recomputed from the fused kernel's logit inputs against
// the ones the composed (materialised) path forms, on the same weights.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "models/position_encoding.h"
#include "tests/models/model_test_support.h"
#include "trainers/diagnostics/attention_probabilities.h"
#include "trainers/diagnostics/model_forward.h"

namespace rotor {
namespace {

using model_test::tiny_config;

// Keeps the composed kernel's probabilities per layer, [B, H, N, N].
class ProbabilityCopy : public AttentionObserver {
 public:
  void observe(int64_t layer, const Tensor& p, const std::vector<int32_t>&) override {
    shape[layer] = {p.size(0), p.size(1), p.size(2)};
    values[layer] = p.to_doubles();
  }
  std::map<int64_t, std::vector<int64_t>> shape;
  std::map<int64_t, std::vector<double>> values;
};

ModelConfig diagnostic_config(const std::string& variant, AttentionKernel kernel) {
  ModelConfig c = tiny_config(variant);
  c.layers = 2;
  c.attention_kernel = kernel;
  return c;
}

// Two windows of 70 and 45 tokens (two key tiles, padding in the second).
struct Windows {
  std::vector<int32_t> tokens, lengths{70, 45};
  int64_t batch = 2, seq_len = 70;
  Windows() {
    for (int64_t i = 0; i < batch * seq_len; ++i) tokens.push_back(i % seq_len < lengths[i / seq_len] ? 4 + i % 7 : 0);
  }
  ModelInput input() const { return {tokens, lengths, batch, seq_len}; }
};

// max |recomputed - composed| over every valid row, and max |row sum - 1|.
void compare(const std::string& variant, bool causal, Precision precision, double tolerance) {
  CAPTURE(variant, causal, option_name(precision));
  const PrecisionScope scope(precision);
  const Windows w;
  // The recorded forward runs the fused kernel, or the composed one for an encoding only it takes (CoPE).
  const AttentionKernel recorded =
      position_encoding(diagnostic_config(variant, AttentionKernel::composed).position.type).needs_composed_attention
          ? AttentionKernel::composed
          : AttentionKernel::fused;
  EncoderClassifier fused(diagnostic_config(variant, recorded));
  EncoderClassifier composed(diagnostic_config(variant, AttentionKernel::composed));
  fused.initialize(21);
  composed.initialize(21);
  if (recorded == AttentionKernel::composed) {  // CoPE's embeddings start at zero, where its term is 0: draw them
    model_test::spread_zero_parameters(fused.parameters(), 22);
    model_test::spread_zero_parameters(composed.parameters(), 22);
  }
  AttentionRecorder recorder;
  ForwardContext fused_ctx;
  fused_ctx.causal = causal;
  fused_ctx.attention_capture = &recorder;
  run_forward(fused, w.input(), fused_ctx);
  ProbabilityCopy reference;
  ForwardContext composed_ctx;
  composed_ctx.causal = causal;
  composed_ctx.attention_observer = &reference;
  run_forward(composed, w.input(), composed_ctx);
  double worst = 0, worst_sum = 0;
  int64_t rows = 0;
  for (int64_t l = 0; l < 2; ++l) {
    const int64_t N = reference.shape[l][2];
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t h = 0; h < 2; ++h)
        for_each_probability_row(recorder.layer(l), precision, b, h, [&](int64_t i, const std::vector<double>& p) {
          const double* expected = reference.values[l].data() + ((b * 2 + h) * N + i) * N;
          double sum = 0;
          for (int64_t j = 0; j < N; ++j) {
            worst = std::max(worst, std::abs(p[j] - expected[j]));
            sum += p[j];
            if (causal && j > i) REQUIRE(p[j] == 0.0);
            if (j >= w.lengths[b]) REQUIRE(p[j] == 0.0);
          }
          worst_sum = std::max(worst_sum, std::abs(sum - 1.0));
          ++rows;
        });
  }
  CHECK(rows == 2 * 2 * (70 + 45));
  CHECK(worst < tolerance);
  CHECK(worst_sum < 1e-5);
}

TEST_CASE("recomputed attention probabilities equal the composed path's", "[diagnostics][attention]") {
  for (const std::string variant : {"rope", "alibi", "t5_bias", "fire", "none", "cope"})
    compare(variant, false, Precision::fp32, 2e-6);
  for (const std::string variant : {"rope", "alibi", "t5_bias", "cope"}) compare(variant, true, Precision::fp32, 2e-6);
}

// bf16: the composed path rounds the inputs of its q k^T product to bf16 like the fused tiles do, so the logits
// agree up to the order of the fp32 additions.
TEST_CASE("recomputed attention probabilities in bf16 equal the composed path's", "[diagnostics][attention]") {
  for (const std::string variant : {"rope", "alibi"}) compare(variant, true, Precision::bf16, 2e-5);
}

TEST_CASE("the recorder names a layer that recorded nothing", "[diagnostics][attention]") {
  const AttentionRecorder recorder;
  CHECK_THROWS_WITH(recorder.layer(3), Catch::Contains("attention layer 3 recorded nothing"));
}

}  // namespace
}  // namespace rotor

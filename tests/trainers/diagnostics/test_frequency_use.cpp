// The frequency-pair analysis of rotary models: the pair terms add up to the
// logits the fused kernel softmaxes, the pair norms are those of the
// unrotated q and k in the model's layout, and non-rotary models are refused.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/models/model_test_support.h"
#include "trainers/diagnostics/attention_probabilities.h"
#include "trainers/diagnostics/frequency_use.h"
#include "trainers/diagnostics/model_forward.h"

namespace rotor {
namespace {

using model_test::tiny_config;

ModelConfig rotary_config(const std::string& type, const std::string& layout, double fraction) {
  ModelConfig c = tiny_config("none");
  c.layers = 2;
  c.position = model_test::rope_position(layout, fraction);
  if (type != "rope") {
    c.position = PositionConfig();
    c.position.type = type;
    c.position.set("layout", model_test::option<RotaryLayout>(layout));
  }
  return c;
}

// Two windows of 9 and 6 tokens.
ModelInput two_windows(std::vector<int32_t>& tokens) {
  for (int64_t i = 0; i < 18; ++i) tokens.push_back(i % 9 < (i < 9 ? 9 : 6) ? 4 + i % 7 : 0);
  static const std::vector<int32_t> lengths{9, 6};
  return {tokens, lengths, 2, 9};
}

// softmax_j(scale * sum_p c_p(q_i, k_j)) against the probabilities recomputed from the kernel's own logits.
void check_terms_sum_to_logits(const ModelConfig& config, bool causal) {
  CAPTURE(config.position.type, option_name(config.position.choice<RotaryLayout>("layout")), causal);
  EncoderClassifier model(config);
  model.initialize(5);
  const std::vector<FrequencyPair> pairs = frequency_pairs(*model.position_encoding().rotation(), config.head_dim());
  std::vector<int> covered(static_cast<size_t>(config.head_dim()), 0);
  for (const FrequencyPair& p : pairs) ++covered[p.first], ++covered[p.second];
  CHECK(covered == std::vector<int>(covered.size(), 1));
  std::vector<int32_t> tokens;
  AttentionRecorder recorder;
  ForwardContext ctx;
  ctx.causal = causal;
  ctx.attention_capture = &recorder;
  run_forward(model, two_windows(tokens), ctx);
  const int64_t dh = config.head_dim();
  for (int64_t l = 0; l < config.layers; ++l) {
    const AttentionLogitInputs& layer = recorder.layer(l);
    const std::vector<double> q = layer.q.to_doubles(), k = layer.k.to_doubles();
    const int64_t n = layer.q.size(2);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t h = 0; h < config.heads; ++h)
        for_each_probability_row(layer, Precision::fp32, b, h, [&](int64_t i, const std::vector<double>& p) {
          const double* qi = q.data() + ((b * config.heads + h) * n + i) * dh;
          const int64_t keys = causal ? i + 1 : layer.key_lengths[static_cast<size_t>(b)];
          std::vector<double> logits, c(pairs.size());
          double total = 0;
          for (int64_t j = 0; j < keys; ++j) {
            const double* kj = k.data() + ((b * config.heads + h) * n + j) * dh;
            pair_contributions(qi, kj, pairs, c.data());
            double logit = 0, dot = 0;
            for (double v : c) logit += v;
            for (int64_t d = 0; d < dh; ++d) dot += qi[d] * kj[d];
            CHECK(logit == Approx(dot).margin(1e-12));
            logits.push_back(std::exp(layer.scale * logit));
            total += logits.back();
          }
          for (int64_t j = 0; j < keys; ++j) CHECK(p[j] == Approx(logits[j] / total).margin(1e-6));
        });
  }
}

TEST_CASE("the frequency pairs' terms sum to the attention logit for every query and key",
          "[diagnostics][frequencies]") {
  for (bool causal : {false, true})
    for (const char* layout : {"interleaved", "half"}) {
      check_terms_sum_to_logits(rotary_config("rope", layout, 1.0), causal);
      check_terms_sum_to_logits(rotary_config("rope", layout, 0.5), causal);  // 4 of 8 dims unrotated
      check_terms_sum_to_logits(rotary_config("xpos", layout, 1.0), causal);
      check_terms_sum_to_logits(rotary_config("p_rope", layout, 1.0), causal);
    }
}

TEST_CASE("the pair norms are those of the unrotated q and k in the model's layout", "[diagnostics][frequencies]") {
  for (const char* layout : {"interleaved", "half"}) {
    CAPTURE(layout);
    ModelConfig rotated = rotary_config("rope", layout, 1.0);
    ModelConfig plain = rotated;
    plain.position = PositionConfig();
    plain.position.type = "none";  // no parameters either: the same weights from the same seed
    EncoderClassifier rope(rotated), none(plain);
    rope.initialize(9);
    none.initialize(9);
    TokenizedSplit split;
    split.name = "val";
    split.add({4, 7, 5, 9, 6, 8}, 0);
    const nlohmann::json use = measure_frequency_use(rope, split, 16, 4).to_json();
    std::vector<int32_t> tokens{4, 7, 5, 9, 6, 8};
    AttentionRecorder recorder;
    ForwardContext ctx;
    ctx.attention_capture = &recorder;
    run_forward(none, {tokens, {6}, 1, 6}, ctx);
    const int64_t dh = rotated.head_dim(), half = dh / 2;
    // Layer 0 only: later layers see what the rotated attention made of their input.
    {
      const std::vector<double> q = recorder.layer(0).q.to_doubles(), k = recorder.layer(0).k.to_doubles();
      for (int64_t h = 0; h < rotated.heads; ++h) {
        const auto& head = use["layers"][0]["heads"][h];
        double shares = 0;
        for (int64_t i = 0; i < half; ++i) {
          const int64_t a = std::string(layout) == "half" ? i : 2 * i,
                        b = std::string(layout) == "half" ? i + half : a + 1;
          double qn = 0, kn = 0;
          for (int64_t t = 0; t < 6; ++t) {
            const int64_t row = (h * 6 + t) * dh;
            qn += std::hypot(q[row + a], q[row + b]) / 6;
            kn += std::hypot(k[row + a], k[row + b]) / 6;
          }
          CHECK(head["q_norm"][i].get<double>() == Approx(qn).margin(1e-5));
          CHECK(head["k_norm"][i].get<double>() == Approx(kn).margin(1e-5));
          shares += head["mean_abs_share"][i].get<double>();
        }
        CHECK(shares == Approx(1.0).margin(1e-9));
      }
    }
  }
}

TEST_CASE("a frequency analysis of a model without rotations names its encoding", "[diagnostics][frequencies]") {
  EncoderClassifier model(tiny_config("alibi"));
  model.initialize(3);
  TokenizedSplit split;
  split.name = "val";
  split.add({4, 5, 6}, 0);
  CHECK_THROWS_WITH(
      measure_frequency_use(model, split, 16, 4),
      Catch::Contains("model.position.type: alibi does not rotate q and k") && Catch::Contains("rope, xpos or p_rope"));
}

}  // namespace
}  // namespace rotor

// The language models (models/language_model.h) on the tiny two-layer configs:
// the causal kind never reads ahead, whatever ForwardContext::causal says
// (changing token t never changes the logits at slots < t), for several
// encodings on the fused and composed softmax kernels and on linear attention;
// the masked kind reads both ways; finite-difference gradients in double of the
// loss in the tied embedding (lookup and output layer), lm_head.bias and BERT's
// transform, with ignored (-100) targets; the head's parameter names.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "models/language_model.h"
#include "tests/models/causality_check.h"
#include "tests/models/kernel_comparison.h"
#include "tests/models/model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

constexpr int32_t kIgnore = -100;

// Training-mode logits [B, N, V] (dropout on) of a forward whose context asks for bidirectional
// attention: the causal kind must be causal anyway, and the context must come back unchanged.
std::vector<double> lm_logits(const LanguageModel& model, const ToyBatch& b) {
  NoGradGuard no_grad;
  ForwardContext ctx{true, 5, 3};
  const std::vector<double> logits = model.logits(b.input(), ctx).value().to_doubles();
  REQUIRE_FALSE(ctx.causal);
  return logits;
}

// Causal targets: slot i predicts token i + 1; -100 on padding, each row's last token and every third slot.
// Masked targets: the token itself at every third valid slot (BERT's selected slots), -100 elsewhere.
std::vector<int32_t> lm_targets(const ToyBatch& b, LanguageModelKind kind) {
  std::vector<int32_t> targets(b.tokens.size(), kIgnore);
  for (int64_t row = 0; row < b.batch; ++row)
    for (int64_t i = 0; i < b.lengths[static_cast<size_t>(row)]; ++i) {
      const size_t at = static_cast<size_t>(row * b.seq_len + i);
      if (kind == LanguageModelKind::causal && i % 3 != 2 && i + 1 < b.lengths[static_cast<size_t>(row)])
        targets[at] = b.tokens[at + 1];
      if (kind == LanguageModelKind::masked && i % 3 == 1) targets[at] = b.tokens[at];
    }
  return targets;
}

}  // namespace

TEST_CASE("causal LM: changing token t never changes the logits before t (softmax, both kernels)",
          "[language_model][causal]") {
  const std::string variant = GENERATE(as<std::string>(), "rope-interleaved", "alibi", "t5_bias", "learned", "none");
  const AttentionKernel kernel = GENERATE(AttentionKernel::fused, AttentionKernel::composed);
  CAPTURE(variant, option_name(kernel));
  LanguageModel model(kernel_config(variant, kernel), LanguageModelKind::causal, DType::F64);
  model.initialize(21);
  const int64_t vocab = model.config().vocab_size;
  require_causal([&](const ToyBatch& b) { return lm_logits(model, b); }, vocab, 70, {0, 5, 63, 64, 69});
}

TEST_CASE("causal LM: changing token t never changes the logits before t (linear attention)",
          "[language_model][causal][linear]") {
  const std::string variant = GENERATE(as<std::string>(), "none", "rope-interleaved", "rope-half");
  const LinearRotation rotation = GENERATE(LinearRotation::after_feature_map, LinearRotation::before_feature_map);
  CAPTURE(variant, option_name(rotation));
  ModelConfig c = kernel_config(variant, AttentionKernel::fused);
  c.attention = AttentionKind::linear;
  c.linear_rotation = rotation;
  LanguageModel model(c, LanguageModelKind::causal, DType::F64);
  model.initialize(21);
  require_causal([&](const ToyBatch& b) { return lm_logits(model, b); }, c.vocab_size, 40, {0, 5, 21, 39});
}

TEST_CASE("masked LM reads both ways even when the context asks for causal attention", "[language_model]") {
  LanguageModel model(kernel_config("rope-interleaved", AttentionKernel::fused), LanguageModelKind::masked, DType::F64);
  model.initialize(21);
  const ToyBatch b = make_toy_batch(ToyTask::order, 2, 12, 12, 9, 1, /*min_len=*/12);
  ToyBatch later = b;
  for (int64_t row = 0; row < b.batch; ++row) {
    int32_t& token = later.tokens[static_cast<size_t>(row * b.seq_len + 8)];
    token = token == 11 ? 10 : 11;
  }
  NoGradGuard no_grad;
  auto first_slot = [&](const ToyBatch& batch) {
    ForwardContext ctx;
    ctx.causal = true;
    const std::vector<double> logits = model.logits(batch.input(), ctx).value().to_doubles();
    CHECK(ctx.causal);
    return std::vector<double>(logits.begin(), logits.begin() + model.config().vocab_size);
  };
  CHECK(first_slot(b) != first_slot(later));  // slot 0 sees token 8
}

TEST_CASE("language models declare the head after the encoder: lm_head.* and no classifier", "[language_model]") {
  const ModelConfig c = tiny_config("rope-interleaved");
  const LanguageModel causal(c, LanguageModelKind::causal, DType::F64);
  const LanguageModel masked(c, LanguageModelKind::masked, DType::F64);
  const std::vector<ParameterInfo>& infos = causal.parameters().infos();
  CHECK(infos.back().name == "lm_head.bias");
  CHECK(infos.back().shape == Shape{c.vocab_size});
  CHECK_FALSE(causal.parameters().contains("head.weight"));
  std::vector<std::string> tail;
  for (size_t i = masked.parameters().infos().size() - 5; i < masked.parameters().infos().size(); ++i)
    tail.push_back(masked.parameters().infos()[i].name);
  CHECK(tail == std::vector<std::string>{"lm_head.transform.weight", "lm_head.transform.bias", "lm_head.norm.weight",
                                         "lm_head.norm.bias", "lm_head.bias"});
  ModelConfig cls = c;
  cls.pooling = Pooling::cls;  // ignored: a language model has no CLS slot
  CHECK_FALSE(LanguageModel(cls, LanguageModelKind::masked, DType::F64).parameters().contains("embed.cls"));
}

TEST_CASE("language models: finite-difference gradients of the loss in the tied embedding and the head",
          "[language_model][gradcheck]") {
  const LanguageModelKind kind = GENERATE(LanguageModelKind::causal, LanguageModelKind::masked);
  const std::string variant = GENERATE(as<std::string>(), "rope-interleaved", "alibi");
  CAPTURE(kind == LanguageModelKind::causal ? "causal" : "masked", variant);
  LanguageModel model(kernel_config(variant, AttentionKernel::fused), kind, DType::F64);  // dropout on
  model.initialize(21);
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 9, 12, 9, 1, /*min_len=*/4);  // padded rows
  const std::vector<int32_t> targets = lm_targets(b, kind);
  REQUIRE(std::count(targets.begin(), targets.end(), kIgnore) > 0);
  auto loss = [&] {
    ForwardContext ctx{true, 5, 3};
    return model.loss(model.logits(b.input(), ctx), targets);
  };
  const auto entries = finite_difference_gradients(model.parameters(), loss, [](const std::string& name) {
    return name == "embed.tokens.weight" || name.rfind("lm_head.", 0) == 0 || name == "final_norm.weight";
  });
  CHECK(entries.size() >= 12 * 16 + 12);
  CHECK(worst_gradient_error(entries) < 1e-7);
}

TEST_CASE("language model loss: the mean cross entropy over the scored slots only", "[language_model]") {
  LanguageModel model(tiny_config("none"), LanguageModelKind::causal, DType::F64);
  model.initialize(3);
  const ToyBatch b = make_toy_batch(ToyTask::order, 2, 6, 12, 9, 1, /*min_len=*/6);
  NoGradGuard no_grad;
  ForwardContext ctx;
  const Var logits = model.logits(b.input(), ctx);
  REQUIRE(logits.shape() == Shape{2, 6, 12});
  const std::vector<double> l = logits.value().to_doubles();
  auto nll = [&](int64_t slot, int32_t target) {  // -log softmax(logits[slot])[target]
    double total = 0;
    for (int64_t v = 0; v < 12; ++v) total += std::exp(l[static_cast<size_t>(slot * 12 + v)]);
    return std::log(total) - l[static_cast<size_t>(slot * 12 + target)];
  };
  std::vector<int32_t> targets(b.tokens.size(), kIgnore);
  targets[3] = 5;
  targets[7] = 2;
  CHECK(model.loss(logits, targets).value().item() == Approx((nll(3, 5) + nll(7, 2)) / 2).epsilon(1e-12));
  CHECK(model.loss(logits, std::vector<int32_t>(b.tokens.size(), kIgnore)).value().item() == 0.0);
  CHECK_THROWS_AS(model.loss(logits, std::vector<int32_t>(3, 1)), ShapeError);
}

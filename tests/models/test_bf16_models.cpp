// run.precision bf16 on whole models: for every encoding, attention kind and
// objective (classifier, causal LM, masked LM) a training-mode forward and
// backward in bf16 stays close to the same step in fp32 (dropout on, padded
// rows), and differs from it, so the bf16 path really ran. The kernels' own
// bounds are in tests/engine (test_gemm_bf16.cpp, test_attention_bf16.cpp);
// here the model-level tolerances are in units of u = 2^-9, the relative
// error of one bf16 input: the loss moves by less than u (measured: 0.05 u at
// most) and the gradient vector by less than 10 u in relative L2 (measured:
// 2.2 u at most), across the two layers and every product in them.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "engine/precision.h"
#include "models/language_model.h"
#include "tests/models/kernel_comparison.h"
#include "tests/models/model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

constexpr double kU = 1.0 / 512;  // bf16's unit roundoff

struct Step {
  double loss;
  std::vector<double> grads;
};

ModelConfig variant_config(const std::string& variant) {
  const bool linear = variant.rfind("linear+", 0) == 0, composed = variant.rfind("composed+", 0) == 0;
  const std::string encoding = linear ? "rope-interleaved" : composed ? variant.substr(9) : variant;
  ModelConfig c = kernel_config(encoding, composed ? AttentionKernel::composed : AttentionKernel::fused);
  if (linear) c.attention = AttentionKind::linear;
  if (variant == "linear+rope-code") c.linear_rotation = LinearRotation::before_feature_map;
  c.d_model = 32;
  c.d_ff = 64;
  return c;
}

// One training-mode step's loss and parameter gradients under `precision`.
template <class M, class Loss>
Step step(M& model, Precision precision, Loss loss_of) {
  const PrecisionScope scope(precision);
  model.parameters().zero_grad();
  const Var loss = loss_of();
  backward(loss);
  return {loss.value().item(), model.parameters().grads().to_doubles()};
}

double relative_distance(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0, ref = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    ref += b[i] * b[i];
  }
  return std::sqrt(diff / ref);
}

void check_close(const Step& bf16, const Step& fp32) {
  CAPTURE(bf16.loss, fp32.loss);
  REQUIRE(std::isfinite(bf16.loss));
  CHECK(std::abs(bf16.loss - fp32.loss) <= kU * std::abs(fp32.loss));
  CHECK(bf16.grads != fp32.grads);  // the products really ran in bf16 (a float loss can round to the same value)
  const double grad_error = relative_distance(bf16.grads, fp32.grads);
  CAPTURE(grad_error);
  CHECK(grad_error < 10 * kU);
}

const char* const kVariants[] = {"rope-interleaved",
                                 "rope-half",
                                 "sinusoidal",
                                 "learned",
                                 "t5_bias",
                                 "alibi",
                                 "alibi_directional",
                                 "kerple",
                                 "fire",
                                 "none",
                                 "xpos",
                                 "p_rope",
                                 "linear+rope",
                                 "linear+rope-code",
                                 "composed+rope-interleaved",
                                 "composed+t5_bias"};

}  // namespace

TEST_CASE("bf16 classifier step: close to fp32 for every encoding and attention kind", "[bf16][model]") {
  const std::string variant = GENERATE(from_range(std::begin(kVariants), std::end(kVariants)));
  CAPTURE(variant);
  EncoderClassifier model(variant_config(variant));
  model.initialize(11);
  const ToyBatch b = make_toy_batch(ToyTask::order, 8, 24, 12, 5, 0, /*min_len=*/6);
  auto loss = [&] {
    ForwardContext ctx{true, 5, 3};
    return model.loss(model.logits(b.input(), ctx), b.labels);
  };
  const Step fp32 = step(model, Precision::fp32, loss);
  check_close(step(model, Precision::bf16, loss), fp32);
}

TEST_CASE("bf16 language model step: close to fp32 for every encoding, causal and masked", "[bf16][model]") {
  const std::string variant = GENERATE(from_range(std::begin(kVariants), std::end(kVariants)));
  const LanguageModelKind kind = GENERATE(LanguageModelKind::causal, LanguageModelKind::masked);
  CAPTURE(variant, kind == LanguageModelKind::causal ? "causal" : "masked");
  LanguageModel model(variant_config(variant), kind);
  model.initialize(13);
  const ToyBatch b = make_toy_batch(ToyTask::order, 6, 24, 12, 9, 1, /*min_len=*/6);
  std::vector<int32_t> targets(b.tokens.size(), -100);  // next token (causal) or the token itself (masked)
  for (size_t i = 0; i + 1 < targets.size(); ++i)
    if (b.tokens[i] != 0 && i % 3 != 2) targets[i] = b.tokens[kind == LanguageModelKind::causal ? i + 1 : i];
  auto loss = [&] {
    ForwardContext ctx{true, 5, 3};
    return model.loss(model.logits(b.input(), ctx), targets);
  };
  const Step fp32 = step(model, Precision::fp32, loss);
  check_close(step(model, Precision::bf16, loss), fp32);
}

TEST_CASE("bf16 leaves double computations alone", "[bf16][model]") {
  EncoderClassifier model(variant_config("rope-interleaved"), DType::F64);
  model.initialize(11);
  const ToyBatch b = make_toy_batch(ToyTask::order, 4, 16, 12, 5, 0);
  auto loss = [&] {
    ForwardContext ctx{true, 5, 3};
    return model.loss(model.logits(b.input(), ctx), b.labels);
  };
  const Step fp64 = step(model, Precision::fp32, loss), in_bf16_scope = step(model, Precision::bf16, loss);
  CHECK(fp64.loss == in_bf16_scope.loss);
  CHECK(fp64.grads == in_bf16_scope.grads);
}

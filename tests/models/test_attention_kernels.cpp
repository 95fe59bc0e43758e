// The fused attention op inside a whole model against the composed reference
// (attention_kernel: composed): logits, loss and every parameter gradient,
// including the T5 table's, KERPLE's and the learned ALiBi slopes', for every
// position encoding, with padding, odd lengths and both dropouts on. Both paths
// draw the attention-dropout mask from the same key, so training-mode results
// must agree too. And each path's gradients against central finite differences
// of the loss (float64), for every encoding. All of it again with randomized
// positions, where the offset biases become position-pair biases.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/models/model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

struct ForwardBackward {
  std::vector<double> logits;
  std::vector<std::pair<std::string, std::vector<double>>> grads;  // per parameter
  double loss = 0;
};

ForwardBackward run(const ModelConfig& c, DType dtype, const ToyBatch& b, bool training) {
  EncoderClassifier model(c, dtype);
  model.initialize(21);
  model.parameters().zero_grad();
  ForwardContext ctx{training, 5, 3};
  const Var logits = model.logits(b.input(), ctx);
  const Var loss = model.loss(logits, b.labels);
  backward(loss);
  ForwardBackward r{logits.value().to_doubles(), {}, loss.value().item()};
  const ParameterStore& params = model.parameters();
  for (size_t id = 0; id < params.infos().size(); ++id)
    r.grads.emplace_back(params.infos()[id].name, params.grad(static_cast<ParameterId>(id)).to_doubles());
  return r;
}

// max |a - b| / max(max |b|, floor): a relative error over the whole tensor.
double relative_error(const std::vector<double>& a, const std::vector<double>& b, double floor = 1e-12) {
  REQUIRE(a.size() == b.size());
  double diff = 0, scale = floor;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

// "alibi_directional-learned": alibi_directional with learned slopes.
ModelConfig kernel_config(const std::string& variant, AttentionKernel kernel) {
  const bool learned_slopes = variant == "alibi_directional-learned";
  ModelConfig c = tiny_config(learned_slopes ? "alibi_directional" : variant);
  if (learned_slopes) c.position.set("learned_slopes", true);
  c.layers = 2;
  c.dropout = 0.1;
  c.attention_dropout = 0.2;
  c.attention_kernel = kernel;
  if (variant == "learned") c.position.set("max_len", 128);
  if (variant == "xpos") c.position.set("xpos_scale_base", 16.0);  // scales up to 0.29^(-35/16) ~ 15 at N = 70
  return c;
}

// Every parameter tensor's gradient on about 6 of its entries against central
// differences: max |analytic - numeric| / max(1, |numeric|).
double finite_difference_error(const ModelConfig& c, const ToyBatch& b) {
  EncoderClassifier model(c, DType::F64);
  model.initialize(21);
  return worst_gradient_error(finite_difference_gradients(
      model, b, [](const std::string&) { return true; }, 6));
}

void check_same(const ForwardBackward& fused, const ForwardBackward& composed, double tol) {
  CHECK(relative_error(fused.logits, composed.logits) < tol);
  CHECK(std::abs(fused.loss - composed.loss) < tol * std::max(1.0, std::abs(composed.loss)));
  REQUIRE(fused.grads.size() == composed.grads.size());
  // The k bias's exact gradient is zero (it shifts a whole softmax row), so a
  // gradient is measured against at least 1e-3 of the largest one: rounding
  // noise on an exact zero is not an error.
  double largest = 0;
  for (const auto& g : composed.grads)
    for (double x : g.second) largest = std::max(largest, std::abs(x));
  for (size_t p = 0; p < fused.grads.size(); ++p) {
    CAPTURE(fused.grads[p].first);
    CHECK(relative_error(fused.grads[p].second, composed.grads[p].second, 1e-3 * largest) < tol);
  }
}

}  // namespace

TEST_CASE("fused attention equals the composed reference in every encoding", "[attention][model]") {
  const std::string variant =
      GENERATE("rope-interleaved", "rope-half", "sinusoidal", "learned", "t5_bias", "alibi", "alibi_directional",
               "alibi_directional-learned", "kerple", "fire", "none", "xpos", "p_rope");
  const DType dtype = GENERATE(DType::F64, DType::F32);
  const bool training = GENERATE(false, true);
  const int64_t seq_len = GENERATE(7, 37, 70);  // 70 crosses the kernel's 64-key tile
  CAPTURE(variant, dtype == DType::F64 ? "f64" : "f32", training, seq_len);
  const double tol = dtype == DType::F64 ? 1e-10 : 1e-5;

  const ToyBatch b = make_toy_batch(ToyTask::order, 5, seq_len, 12, 9, 1, /*min_len=*/2);  // padded rows
  const ForwardBackward fused = run(kernel_config(variant, AttentionKernel::fused), dtype, b, training);
  const ForwardBackward composed = run(kernel_config(variant, AttentionKernel::composed), dtype, b, training);
  check_same(fused, composed, tol);
}

TEST_CASE("fused attention equals the composed reference with per-layer T5 tables and CLS pooling",
          "[attention][model]") {
  const DType dtype = GENERATE(DType::F64, DType::F32);
  const double tol = dtype == DType::F64 ? 1e-10 : 1e-5;
  auto config = [](AttentionKernel kernel) {
    ModelConfig c = kernel_config("t5_bias", kernel);
    c.position.set("per_layer", true);
    c.pooling = Pooling::cls;
    return c;
  };
  const ToyBatch b = make_toy_batch(ToyTask::order, 4, 33, 12, 2, 0, 2);
  const ForwardBackward fused = run(config(AttentionKernel::fused), dtype, b, true);
  const ForwardBackward composed = run(config(AttentionKernel::composed), dtype, b, true);
  check_same(fused, composed, tol);
}

TEST_CASE("both attention paths' gradients match finite differences in every encoding, dropout on",
          "[attention][model][gradcheck]") {
  const std::string variant =
      GENERATE("rope-interleaved", "rope-half", "sinusoidal", "learned", "t5_bias", "alibi", "none", "xpos", "p_rope");
  const AttentionKernel kernel = GENERATE(AttentionKernel::fused, AttentionKernel::composed);
  CAPTURE(variant, option_name(kernel));
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 11, 12, 4, 2, /*min_len=*/2);  // padded rows
  // Central differences with h = 1e-6 err by O(h^2) plus rounding O(1e-16 / h): ~1e-10.
  CHECK(finite_difference_error(kernel_config(variant, kernel), b) < 1e-6);
}

// Training draws random positions (model.position.randomized) from [0, 150):
// the offset encodings' tables go through OffsetPairBias, FIRE through its
// explicit-position tiles.
TEST_CASE("fused attention equals the composed reference with randomized positions", "[attention][model]") {
  const std::string variant =
      GENERATE("rope-interleaved", "rope-half", "sinusoidal", "learned", "t5_bias", "alibi", "alibi_directional",
               "alibi_directional-learned", "kerple", "fire", "xpos", "p_rope");
  const DType dtype = GENERATE(DType::F64, DType::F32);
  const int64_t seq_len = GENERATE(7, 70);  // 70 crosses the kernel's 64-key tile
  CAPTURE(variant, dtype == DType::F64 ? "f64" : "f32", seq_len);
  const double tol = dtype == DType::F64 ? 1e-10 : 1e-5;
  auto config = [&](AttentionKernel kernel) {
    ModelConfig c = kernel_config(variant, kernel);
    randomize_positions(c, 150);
    return c;
  };
  const ToyBatch b = make_toy_batch(ToyTask::order, 5, seq_len, 12, 9, 1, /*min_len=*/2);
  check_same(run(config(AttentionKernel::fused), dtype, b, true),
             run(config(AttentionKernel::composed), dtype, b, true), tol);
}

TEST_CASE("both attention paths' gradients match finite differences with randomized positions",
          "[attention][model][gradcheck]") {
  const std::string variant = GENERATE("rope-interleaved", "sinusoidal", "learned", "t5_bias",
                                       "alibi_directional-learned", "kerple", "fire", "xpos");
  const AttentionKernel kernel = GENERATE(AttentionKernel::fused, AttentionKernel::composed);
  CAPTURE(variant, option_name(kernel));
  ModelConfig c = kernel_config(variant, kernel);
  randomize_positions(c, 40);
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 11, 12, 4, 2, /*min_len=*/2);
  CHECK(finite_difference_error(c, b) < 1e-6);
}

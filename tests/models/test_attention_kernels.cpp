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

#include "tests/models/kernel_comparison.h"
#include "tests/models/model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

// Every parameter tensor's gradient on about 6 of its entries against central
// differences: max |analytic - numeric| / max(1, |numeric|).
double finite_difference_error(const ModelConfig& c, const ToyBatch& b) {
  EncoderClassifier model(c, DType::F64);
  model.initialize(21);
  return worst_gradient_error(finite_difference_gradients(
      model, b, [](const std::string&) { return true; }, 6));
}

}  // namespace

TEST_CASE("fused attention equals the composed reference in every encoding", "[attention][model]") {
  const std::string variant =
      GENERATE("rope-interleaved", "rope-half", "sinusoidal", "learned", "t5_bias", "alibi", "alibi_directional",
               "alibi_directional-learned", "kerple", "fire", "none", "xpos", "p_rope", "sandwich");
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

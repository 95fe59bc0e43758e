// Causal softmax attention inside a whole model (ForwardContext::causal), for
// every position encoding of the table: the fused kernel against the composed
// reference (logits, loss and every parameter gradient, padding and both
// dropouts on), and causality itself: changing token t never changes a hidden
// state before t, on either kernel. Each encoding takes its causal form
// (models/position_encoding.h, relative_bias), evaluated where j <= i.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/models/kernel_comparison.h"
#include "tests/models/model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

// Every encoding in the table, plus the second RoPE layout and learned ALiBi slopes.
std::vector<std::string> causal_variants() {
  std::vector<std::string> variants = position_encoding_names();
  variants.push_back("rope-half");
  variants.push_back("alibi_directional-learned");
  return variants;
}

// Hidden states [B, N, d] of a causal forward in training mode (dropout on).
std::vector<double> causal_states(const EncoderClassifier& model, const ToyBatch& b) {
  NoGradGuard no_grad;
  ForwardContext ctx{true, 5, 3};
  ctx.causal = true;
  return model.hidden_states(b.input(), ctx).value().to_doubles();
}

}  // namespace

TEST_CASE("causal fused attention equals the composed reference in every encoding", "[attention][model][causal]") {
  const std::string variant = GENERATE(from_range(causal_variants()));
  const DType dtype = GENERATE(DType::F64, DType::F32);
  const bool training = GENERATE(false, true);
  const int64_t seq_len = GENERATE(7, 70);  // 70: a key tile above the diagonal is skipped
  CAPTURE(variant, dtype == DType::F64 ? "f64" : "f32", training, seq_len);
  const double tol = dtype == DType::F64 ? 1e-10 : 1e-5;
  const ToyBatch b = make_toy_batch(ToyTask::order, 5, seq_len, 12, 9, 1, /*min_len=*/2);  // padded rows
  const ForwardBackward fused = run(kernel_config(variant, AttentionKernel::fused), dtype, b, training, true);
  const ForwardBackward composed = run(kernel_config(variant, AttentionKernel::composed), dtype, b, training, true);
  check_same(fused, composed, tol);
}

TEST_CASE("causal attention: changing token t never changes a hidden state before t", "[attention][model][causal]") {
  const std::string variant = GENERATE(from_range(causal_variants()));
  const AttentionKernel kernel = GENERATE(AttentionKernel::fused, AttentionKernel::composed);
  CAPTURE(variant, option_name(kernel));
  EncoderClassifier model(kernel_config(variant, kernel), DType::F64);
  model.initialize(21);
  const int64_t n = 70, d = model.config().d_model;
  ToyBatch b = make_toy_batch(ToyTask::order, 3, n, 12, 9, 1, /*min_len=*/n);  // unpadded: every t is a token
  const std::vector<double> before = causal_states(model, b);
  for (int64_t t : {0, 5, 63, 64, 69}) {
    CAPTURE(t);
    ToyBatch changed = b;
    for (int64_t row = 0; row < b.batch; ++row) {
      int32_t& token = changed.tokens[static_cast<size_t>(row * n + t)];
      token = token == 11 ? 10 : 11;
    }
    const std::vector<double> after = causal_states(model, changed);
    bool changed_at_t = false;
    for (int64_t row = 0; row < b.batch; ++row)
      for (int64_t i = 0; i <= t; ++i)
        for (int64_t e = 0; e < d; ++e) {
          const size_t at = static_cast<size_t>((row * n + i) * d + e);
          if (i < t) REQUIRE(before[at] == after[at]);
          if (i == t) changed_at_t = changed_at_t || before[at] != after[at];
        }
    CHECK(changed_at_t);
  }
}

TEST_CASE("causal attention is refused for linear attention, which has no causal form yet", "[model][causal]") {
  ModelConfig c = tiny_config("none");
  c.attention = AttentionKind::linear;
  EncoderClassifier model(c, DType::F64);
  model.initialize(1);
  const ToyBatch b = make_toy_batch(ToyTask::order, 2, 6, 12, 1, 0);
  ForwardContext ctx;
  ctx.causal = true;
  CHECK_THROWS_AS(model.hidden_states(b.input(), ctx), ModelConfigError);
}

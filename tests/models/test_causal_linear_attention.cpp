// Causal linear attention inside a whole model (attention: linear with
// ForwardContext::causal), with no position encoding and with RoPE in both
// rotation forms (eq. 19 after the feature map, and before it) and both
// layouts: causality of the hidden states; in a one-layer model the state at
// slot i equals the bidirectional model's on the row's first i + 1 tokens (the
// same numerator and denominator, summed over j <= i), with padded rows; and
// one thread gives the bits of two.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/models/causality_check.h"
#include "tests/models/kernel_comparison.h"
#include "tests/models/model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

ModelConfig linear_config(const std::string& variant, LinearRotation rotation) {
  ModelConfig c = kernel_config(variant, AttentionKernel::fused);  // two layers, dropout on
  c.attention = AttentionKind::linear;
  c.linear_rotation = rotation;
  return c;
}

// Hidden states [B, N, d] of an evaluation forward (no dropout).
std::vector<double> states(const EncoderClassifier& model, const ToyBatch& b, bool causal) {
  NoGradGuard no_grad;
  ForwardContext ctx;
  ctx.causal = causal;
  return model.hidden_states(b.input(), ctx).value().to_doubles();
}

// Row `row`'s first `length` tokens as a batch of one, unpadded.
ToyBatch prefix(const ToyBatch& b, int64_t row, int64_t length) {
  ToyBatch p;
  p.batch = 1;
  p.seq_len = length;
  const auto first = b.tokens.begin() + row * b.seq_len;
  p.tokens.assign(first, first + length);
  p.lengths = {static_cast<int32_t>(length)};
  p.labels = {b.labels[static_cast<size_t>(row)]};
  return p;
}

}  // namespace

#define LINEAR_VARIANTS                                                                                            \
  const std::string variant = GENERATE(as<std::string>(), "none", "rope-interleaved", "rope-half");                \
  const LinearRotation rotation = GENERATE(LinearRotation::after_feature_map, LinearRotation::before_feature_map); \
  CAPTURE(variant, option_name(rotation))

TEST_CASE("causal linear attention: changing token t never changes a hidden state before t",
          "[attention][model][causal][linear]") {
  LINEAR_VARIANTS;
  EncoderClassifier model(linear_config(variant, rotation), DType::F64);
  model.initialize(21);
  require_causal(model, 40, {0, 5, 21, 39});
}

TEST_CASE("causal linear attention at slot i equals bidirectional linear attention on tokens 0..i",
          "[attention][model][causal][linear]") {
  LINEAR_VARIANTS;
  ModelConfig c = linear_config(variant, rotation);
  c.layers = 1;  // a second layer's slot i reads the first's states j < i, which bidirectionally see past i
  EncoderClassifier model(c, DType::F64);
  model.initialize(21);
  const int64_t d = c.d_model;
  const ToyBatch b = make_toy_batch(ToyTask::order, 4, 12, 12, 9, 1, /*min_len=*/2);  // padded rows
  const std::vector<double> causal = states(model, b, true);
  for (int64_t row = 0; row < b.batch; ++row)
    for (int64_t i = 0; i < b.lengths[static_cast<size_t>(row)]; ++i) {
      CAPTURE(row, i);
      const std::vector<double> whole = states(model, prefix(b, row, i + 1), false);
      const auto at = causal.begin() + (row * b.seq_len + i) * d;
      CHECK(relative_error({at, at + d}, {whole.end() - d, whole.end()}) < 1e-10);
    }
}

TEST_CASE("causal linear attention: one thread gives the bits of two (logits, loss, gradients)",
          "[attention][model][causal][linear][determinism]") {
  LINEAR_VARIANTS;
  const ToyBatch b = make_toy_batch(ToyTask::order, 5, 70, 12, 9, 1, /*min_len=*/2);
  ForwardBackward one, two;
  {
    test::ThreadCountGuard threads(1);
    one = run(linear_config(variant, rotation), DType::F32, b, true, true);
  }
  {
    test::ThreadCountGuard threads(2);
    two = run(linear_config(variant, rotation), DType::F32, b, true, true);
  }
  CHECK(one.logits == two.logits);
  CHECK(one.loss == two.loss);
  REQUIRE(one.grads.size() == two.grads.size());
  for (size_t p = 0; p < one.grads.size(); ++p) {
    CAPTURE(one.grads[p].first);
    CHECK(one.grads[p].second == two.grads[p].second);
  }
}

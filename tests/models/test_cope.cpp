// CoPE (models/cope_encoding.cpp): the composed softmax alone takes it, its embeddings start at
// zero (or at N(0, embedding_std)), finite differences through the whole model (encoder and causal), the count is of
// content (a token's copies move it, its index does not), and the encoder form's mirror symmetry. The PyTorch golden
// files cope and cope_causal (test_golden.cpp) check the model against the paper's code; the op itself is tested in
// tests/engine/test_contextual_positions.cpp.
#include <catch2/catch.hpp>

#include <cmath>

#include "model_test_support.h"
#include "models/order_blindness.h"
#include "models/position_encoding.h"

using namespace rotor;
using namespace rotor::model_test;
using Catch::Matchers::Contains;

namespace {

ModelConfig cope_config(int64_t npos_max = 8) {
  ModelConfig c = tiny_config("cope");
  c.layers = 2;
  c.position.set("npos_max", npos_max);
  return c;
}

std::vector<double> cope_logits(EncoderClassifier& model, const ToyBatch& b, bool causal = false) {
  NoGradGuard no_grad;
  ForwardContext ctx;
  ctx.causal = causal;
  return model.logits(b.input(), ctx).value().to_doubles();
}

}  // namespace

TEST_CASE("cope: only the composed softmax takes it, and the error names the key", "[cope][config]") {
  ModelConfig c = cope_config();
  CHECK_NOTHROW(c.validate());
  c.attention_kernel = AttentionKernel::fused;
  CHECK_THROWS_WITH(c.validate(), Contains("model.attention_kernel") && Contains("composed"));
  ModelConfig linear = cope_config();
  linear.attention = AttentionKind::linear;
  CHECK_THROWS_WITH(linear.validate(), Contains("model.attention"));
  ModelConfig none = cope_config(0);
  CHECK_THROWS_WITH(none.validate(), Contains("model.position.npos_max"));
  CHECK(position_encoding("cope").needs_composed_attention);
  CHECK(position_encoding("cope").reversal_symmetric);
}

TEST_CASE("cope: each layer's embeddings, [npos_max, head_dim], start at zero (the paper's code)", "[cope]") {
  EncoderClassifier model(cope_config(5), DType::F64);
  model.initialize(3);
  const ParameterStore& params = model.parameters();
  for (const char* name : {"layers.0.attn.cope.embeddings", "layers.1.attn.cope.embeddings"}) {
    const Tensor t = params.value(params.id(name));
    CHECK(t.shape() == Shape{5, 8});
    for (double v : t.to_doubles()) CHECK(v == 0.0);
  }
}

TEST_CASE("cope: embedding_std starts the embeddings at N(0, std) and leaves every other weight as it was", "[cope]") {
  ModelConfig zero = cope_config(5), drawn = zero;
  drawn.position.set("embedding_std", 0.3);
  EncoderClassifier a(zero, DType::F64), b(drawn, DType::F64);
  a.initialize(3);
  b.initialize(3);
  const std::vector<double> e = b.parameters().value(b.parameters().id("layers.1.attn.cope.embeddings")).to_doubles();
  double squares = 0;
  for (double v : e) squares += v * v;
  CHECK(std::sqrt(squares / static_cast<double>(e.size())) == Approx(0.3).epsilon(0.25));  // 40 draws
  const auto weight = [](const EncoderClassifier& m, const char* name) {
    return m.parameters().value(m.parameters().id(name)).to_doubles();
  };
  CHECK(weight(a, "layers.0.attn.q.weight") == weight(b, "layers.0.attn.q.weight"));
  ModelConfig negative = cope_config();
  negative.position.set("embedding_std", -0.1);
  CHECK_THROWS_WITH(negative.validate(), Contains("model.position.embedding_std"));
}

TEST_CASE("cope: finite-difference gradients through the model, encoder and causal", "[cope][gradcheck]") {
  const bool causal = GENERATE(false, true);
  CAPTURE(causal);
  EncoderClassifier model(with_dropout_on(cope_config(4), AttentionKernel::composed), DType::F64);
  model.initialize(8);
  spread_zero_parameters(model.parameters(), 9);
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 11, 12, 9, 1, 2);
  const auto entries = finite_difference_gradients(
      model, b, [](const std::string& name) { return name.find(".attn.") != std::string::npos; }, 8, 1e-6, causal);
  CHECK(entries.size() > 40);
  CHECK(worst_gradient_error(entries) < 1e-7);
}

TEST_CASE("cope: an encoder with mean pooling cannot tell a sequence from its reverse (the count has no sign)",
          "[cope][position]") {
  const ModelConfig c = cope_config();
  EncoderClassifier model(c, DType::F64);
  model.initialize(4);
  spread_zero_parameters(model.parameters(), 5);
  const ToyBatch b = make_toy_batch(ToyTask::order, 4, 12, 12, 5, 0);
  ToyBatch r = b;
  for (int64_t s = 0; s < b.batch; ++s)
    std::reverse(r.tokens.begin() + s * b.seq_len, r.tokens.begin() + s * b.seq_len + b.lengths[s]);
  const std::vector<double> a = cope_logits(model, b), m = cope_logits(model, r);
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i] == Approx(m[i]).margin(1e-12));
  CHECK_FALSE(order_blindness(c).empty());
  // ... while the paper's causal form tells them apart
  CHECK(cope_logits(model, b, true) != cope_logits(model, r, true));
}

// Log-length query scaling (model.position.logn_scaling, Qwen's use_logn_attn;
// models/logn_query_scaling.h): its factors to positions of 1e5, the model left
// bit for bit as it is up to the training length with every encoding, scaled
// queries past it on both attention kernels, finite-difference gradients in
// double, and the config rules. The PyTorch golden files rope_logn and
// alibi_logn (test_golden.cpp) check the whole model past the training length.
#include <catch2/catch.hpp>

#include <cmath>

#include "model_test_support.h"
#include "models/logn_query_scaling.h"
#include "models/position_encoding.h"

using namespace rotor;
using namespace rotor::model_test;
using Catch::Matchers::Contains;

namespace {

ModelConfig with_logn(ModelConfig c, int64_t training_length) {
  c.position.set("logn_scaling", true);
  c.position.set("original_max_len", training_length);
  return c;
}

ModelConfig encoding_config(const std::string& type) {
  ModelConfig c = tiny_config(type);
  c.layers = 2;
  return c;
}

std::vector<double> logn_logits(const ModelConfig& c, const ToyBatch& b, const Positions& positions = Positions()) {
  EncoderClassifier model(c, DType::F64);
  model.initialize(5);
  NoGradGuard no_grad;
  ForwardContext ctx;
  return model.logits(b.input(), ctx, positions).value().to_doubles();
}

}  // namespace

TEST_CASE("logn scaling: 1 up to the training length, log(n) / log(L) past it, to 1e5", "[logn]") {
  PositionConfig p = rope_position();
  p.set("logn_scaling", true);
  p.set("original_max_len", 512);
  const LognQueryScaling s(p);
  for (const int64_t position : {0, 1, 255, 510, 511}) CHECK(s.factor(position) == 1.0);
  CHECK(s.factor(512) == std::log(513.0) / std::log(512.0));
  CHECK(s.factor(99999) == std::log(100000.0) / std::log(512.0));
  CHECK(s.factor(99999) == Approx(1.8455156).epsilon(1e-7));
  double last = 1.0;
  for (int64_t position = 512; position <= 100000; position += 997) {
    CHECK(s.factor(position) > last);
    last = s.factor(position);
  }
  p.set("logn_scaling", false);
  CHECK(LognQueryScaling(p).factor(99999) == 1.0);
}

TEST_CASE("logn scaling: every encoding's model is unchanged bit for bit up to the training length", "[logn]") {
  const std::string type = GENERATE(from_range(position_encoding_names()));
  CAPTURE(type);
  const ModelConfig plain = encoding_config(type), scaled = with_logn(plain, 16);
  REQUIRE_NOTHROW(scaled.validate());
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 16, plain.vocab_size, 4, 0, 3);
  CHECK(logn_logits(scaled, b) == logn_logits(plain, b));
  if (type != "none") {  // explicit positions that stay below 16, too
    const Positions spread = random_positions(RandomKey{3, 1, 4}, 12, 16);
    const ToyBatch short_batch = make_toy_batch(ToyTask::order, 3, 12, plain.vocab_size, 4, 0, 3);
    CHECK(logn_logits(scaled, short_batch, spread) == logn_logits(plain, short_batch, spread));
  }
  // past it the queries are sharpened
  const ToyBatch longer = make_toy_batch(ToyTask::order, 3, 24, plain.vocab_size, 4, 0, 3);
  CHECK(logn_logits(scaled, longer) != logn_logits(plain, longer));
}

TEST_CASE("logn scaling: the fused and composed kernels agree past the training length", "[logn]") {
  const std::string type = GENERATE("rope-half", "alibi", "fire", "xpos");
  CAPTURE(type);
  ModelConfig fused = with_logn(encoding_config(type), 6), composed = fused;
  composed.attention_kernel = AttentionKernel::composed;
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 20, fused.vocab_size, 4, 0, 3);
  const std::vector<double> a = logn_logits(fused, b), c = logn_logits(composed, b);
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i] == Approx(c[i]).margin(1e-12));
}

TEST_CASE("logn scaling: finite-difference gradients past the training length", "[logn][gradcheck]") {
  const std::string type = GENERATE("rope-half", "kerple");
  const AttentionKernel kernel = GENERATE(AttentionKernel::fused, AttentionKernel::composed);
  CAPTURE(type, kernel == AttentionKernel::fused ? "fused" : "composed");
  ModelConfig c = with_logn(encoding_config(type), 5);
  c.attention_kernel = kernel;
  EncoderClassifier model(c, DType::F64);
  model.initialize(8);
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 14, 12, 9, 1, 4);
  const auto entries = finite_difference_gradients(
      model, b,
      [](const std::string& name) {
        return name.find("attn.q.") != std::string::npos || name.rfind("position.", 0) == 0;
      },
      16);
  CHECK(entries.size() > 20);
  CHECK(worst_gradient_error(entries) < 1e-7);
}

TEST_CASE("logn scaling: config rules name the key", "[logn][config]") {
  ModelConfig linear = with_logn(tiny_config("rope-interleaved"), 16);
  linear.attention = AttentionKind::linear;
  CHECK_THROWS_WITH(linear.validate(), Contains("model.position.logn_scaling") && Contains("linear attention"));
  ModelConfig one = with_logn(tiny_config("alibi"), 1);
  CHECK_THROWS_WITH(one.validate(), Contains("model.position.original_max_len") && Contains("at least 2"));
  for (const std::string& type : position_encoding_names()) CHECK(position_encoding(type).declares("logn_scaling"));
}

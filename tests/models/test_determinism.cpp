// Determinism: initialisation and dropout are pure functions of (seed, name)
// and (seed, step, site), so equal inputs give bit-identical outputs.
#include <catch2/catch.hpp>

#include "model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

std::vector<double> forward(EncoderClassifier& model, const ToyBatch& b, ForwardContext ctx) {
  return model.logits(b.input(), ctx).value().to_doubles();
}

}  // namespace

TEST_CASE("determinism: the same seed gives bit-identical logits for every variant", "[determinism][model]") {
  const std::string variant = GENERATE(as<std::string>{}, "rope-interleaved", "rope-half", "sinusoidal", "learned",
                                       "t5_bias", "alibi", "alibi_directional", "kerple", "fire", "none", "linear+rope",
                                       "linear+rope-code", "xpos", "p_rope", "sandwich");
  const DType dtype = GENERATE(DType::F32, DType::F64);
  const bool linear = variant.rfind("linear+", 0) == 0;
  ModelConfig c = tiny_config(linear ? "rope-interleaved" : variant);
  if (linear) c.attention = AttentionKind::linear;
  if (variant == "linear+rope-code") c.linear_rotation = LinearRotation::before_feature_map;
  c.layers = 2;
  const ToyBatch b = make_toy_batch(ToyTask::contains, 4, 9, c.vocab_size, 3, 0);
  EncoderClassifier m1(c, dtype), m2(c, dtype), m3(c, dtype);
  m1.initialize(42);
  m2.initialize(42);
  m3.initialize(43);
  CHECK(m1.parameters().values().to_doubles() == m2.parameters().values().to_doubles());
  const std::vector<double> a = forward(m1, b, {}), again = forward(m1, b, {});
  CHECK(a == forward(m2, b, {}));
  CHECK(a == again);  // cached rotary / bucket tables do not change anything
  CHECK(a != forward(m3, b, {}));
}

TEST_CASE("determinism: a parameter's initial value depends only on seed and name", "[determinism][model]") {
  ModelConfig one = tiny_config("rope-half"), three = one;
  three.layers = 3;
  three.pooling = Pooling::cls;  // declares an extra parameter before the layers
  EncoderClassifier a(one), b(three);
  a.initialize(9);
  b.initialize(9);
  for (const char* name : {"embed.tokens.weight", "layers.0.attn.q.weight", "layers.0.mlp.fc2.weight", "head.weight"})
    CHECK(a.parameters().var(name).value().to_doubles() == b.parameters().var(name).value().to_doubles());
}

TEST_CASE("determinism: dropout masks are a function of (seed, step)", "[determinism][dropout][model]") {
  const std::string pooling = GENERATE(std::string("mean"), std::string("cls"));
  ModelConfig c = tiny_config("rope-interleaved");
  c.layers = 2;
  c.dropout = 0.3;
  c.attention_dropout = 0.2;
  c.pooling = option<Pooling>(pooling);
  EncoderClassifier model(c);
  model.initialize(5);
  const ToyBatch b = make_toy_batch(ToyTask::contains, 4, 9, c.vocab_size, 3, 0);
  const std::vector<double> step9 = forward(model, b, {true, 11, 9});
  CHECK(step9 == forward(model, b, {true, 11, 9}));  // same (seed, step): identical
  EncoderClassifier other(c);                        // a fresh model object too
  other.initialize(5);
  CHECK(step9 == forward(other, b, {true, 11, 9}));
  CHECK(step9 != forward(model, b, {true, 11, 10}));  // next step: new masks
  CHECK(step9 != forward(model, b, {true, 12, 9}));   // other seed: new masks
  // evaluation ignores dropout: deterministic, independent of seed/step, and unlike training
  const std::vector<double> eval = forward(model, b, {false, 11, 9});
  CHECK(eval == forward(model, b, {false, 99, 1}));
  CHECK(eval != step9);
  // with p = 0 training is evaluation
  ModelConfig c0 = c;
  c0.dropout = c0.attention_dropout = 0.0;
  EncoderClassifier plain(c0);
  plain.initialize(5);
  CHECK(forward(plain, b, {true, 11, 9}) == forward(plain, b, {false, 0, 0}));
  CHECK(forward(plain, b, {false, 0, 0}) == eval);  // same weights: dropout was the only difference
}

TEST_CASE("determinism: gradients are bit-identical across repeated backward passes", "[determinism][model]") {
  ModelConfig c = tiny_config("t5_bias");
  c.dropout = 0.1;
  EncoderClassifier model(c);
  model.initialize(8);
  const ToyBatch b = make_toy_batch(ToyTask::order, 8, 10, c.vocab_size, 3, 0);
  std::vector<std::vector<double>> grads;
  for (int rep = 0; rep < 2; ++rep) {
    model.parameters().zero_grad();
    ForwardContext ctx{true, 1, 4};
    backward(model.loss(model.logits(b.input(), ctx), b.labels));
    grads.push_back(model.parameters().grads().to_doubles());
  }
  CHECK(grads[0] == grads[1]);
}

TEST_CASE("determinism: training is bit-identical with 1 and 2 threads", "[determinism][model]") {
  // a learned bias (offset, pair) and a constant one computed per call
  ModelConfig c = tiny_config(GENERATE(as<std::string>{}, "t5_bias", "fire", "sandwich"));
  c.d_model = 32;
  c.layers = 2;
  c.dropout = 0.1;
  c.attention_dropout = 0.1;
  std::vector<std::vector<double>> params;
  for (int threads : {1, 2}) {
    EncoderClassifier model(c);
    TrainOptions o;
    o.task = ToyTask::order;
    o.steps = 2;
    o.batch = 64;
    o.threads = threads;
    train_toy(model, o);
    params.push_back(model.parameters().values().to_doubles());
  }
  CHECK(params[0] == params[1]);
}

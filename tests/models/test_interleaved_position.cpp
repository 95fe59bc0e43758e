// model.interleaved_position (models/interleaved_position.h): which layers take
// the second encoding, the rules the pair must follow (each error naming its
// key), the invariants (interleaving an encoding with itself changes nothing; a
// model all of whose layers take the interleaved encoding is that encoding's
// model), order blindness of a mixed model, and finite-difference gradients in
// double through a mix of two biases with parameters. The PyTorch golden files
// rope_irope and rope_local_global (test_golden.cpp) check whole mixed models.
#include <catch2/catch.hpp>

#include "model_test_support.h"
#include "models/interleaved_position.h"
#include "models/order_blindness.h"
#include "models/transformer_encoder.h"

using namespace rotor;
using namespace rotor::model_test;
using Catch::Matchers::Contains;

namespace {

ModelConfig interleaved(ModelConfig c, int64_t every, int64_t first, const std::string& type) {
  c.interleaved_position.every = every;
  c.interleaved_position.first = first;
  c.interleaved_position.position.type = type;
  return c;
}

ModelConfig four_layers(const std::string& type) {
  ModelConfig c = tiny_config(type);
  c.layers = 4;
  return c;
}

std::string error_of(const ModelConfig& c) {
  try {
    c.validate();
  } catch (const ModelConfigError& e) {
    return e.what();
  }
  return "";
}

std::vector<double> interleaved_logits(const ModelConfig& c, const ToyBatch& b) {
  EncoderClassifier model(c, DType::F64);
  model.initialize(7);
  return eval_logits(model, b);
}

}  // namespace

TEST_CASE("interleaved position: the layers it takes, as Llama 4, Gemma 3 and ModernBERT number them") {
  InterleavedPosition irope{4, 3, {}};       // Llama 4: use_rope = (layer_idx + 1) % 4 != 0
  InterleavedPosition gemma{6, 5, {}};       // Gemma 3: global where (layer_idx + 1) % 6 == 0
  InterleavedPosition modernbert{3, 0, {}};  // ModernBERT: global where layer_id % 3 == 0
  for (int64_t layer = 0; layer < 48; ++layer) {
    CHECK(irope.takes(layer) == ((layer + 1) % 4 == 0));
    CHECK(gemma.takes(layer) == ((layer + 1) % 6 == 0));
    CHECK(modernbert.takes(layer) == (layer % 3 == 0));
    CHECK_FALSE(InterleavedPosition().takes(layer));
  }
  const ModelConfig c = interleaved(four_layers("rope-interleaved"), 4, 3, "none");
  CHECK(c.position_of_layer(2).type == "rope");
  CHECK(c.position_of_layer(3).type == "none");
  CHECK(error_of(c).empty());
}

TEST_CASE("interleaved position: the rules, each error naming its key") {
  const ModelConfig rope = four_layers("rope-interleaved");
  CHECK_THAT(error_of(interleaved(rope, 1, 0, "none")), Contains("model.interleaved_position.every: 1"));
  CHECK_THAT(error_of(interleaved(rope, 4, 4, "none")), Contains("model.interleaved_position.first: must be in [0"));
  ModelConfig two = interleaved(rope, 4, 3, "none");
  two.layers = 2;
  CHECK_THAT(error_of(two), Contains("model.interleaved_position.first: layer 3 is past the model's 2 layers"));
  ModelConfig off = rope;
  off.interleaved_position.position.type = "alibi";
  CHECK_THAT(error_of(off), Contains("model.interleaved_position.every") && Contains("0 (off)"));
  ModelConfig randomized = interleaved(rope, 2, 1, "alibi");
  randomized.interleaved_position.position.set("randomized", true);
  CHECK_THAT(error_of(randomized), Contains("model.interleaved_position.randomized: belongs to the whole model"));
  CHECK_THAT(error_of(interleaved(rope, 2, 1, "sinusoidal")),
             Contains("model.interleaved_position.type: sinusoidal adds its signal to the embeddings"));
  CHECK_THAT(error_of(interleaved(four_layers("learned"), 2, 1, "alibi")),
             Contains("learned (model.position.type) adds its signal to the embeddings"));
  CHECK_THAT(error_of(interleaved(four_layers("t5_bias"), 2, 1, "t5_bias")),
             Contains("t5_bias declares the same parameters as model.position.type t5_bias"));
  CHECK_THAT(error_of(interleaved(rope, 2, 1, "fire")),
             Contains("fire has parameters of its own in every layer (layers.0.attn.fire"));
  // The interleaved encoding's own checks and another encoding's key name this block's keys.
  ModelConfig odd = interleaved(rope, 2, 1, "rope");
  odd.interleaved_position.position.set("fraction", 0.3);
  CHECK_THAT(error_of(odd), Contains("model.interleaved_position.fraction"));
  ModelConfig foreign = interleaved(rope, 2, 1, "rope");
  foreign.interleaved_position.position.set("num_buckets", int64_t{64});
  CHECK_THAT(error_of(foreign), Contains("model.interleaved_position.num_buckets: applies to position.type t5_bias"));
  CHECK(error_of(interleaved(four_layers("t5_bias"), 2, 1, "kerple")).empty());  // shared parameters, distinct names
}

TEST_CASE("interleaved position: an encoding interleaved with itself is the plain model, bit for bit") {
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 10, 12, 4, 0);
  for (const std::string type : {"rope-interleaved", "alibi", "xpos"}) {
    INFO(type);
    const ModelConfig plain = four_layers(type);
    ModelConfig mixed = interleaved(plain, 2, 1, plain.position.type);
    mixed.interleaved_position.position = plain.position;
    REQUIRE(error_of(mixed).empty());
    CHECK(interleaved_logits(mixed, b) == interleaved_logits(plain, b));
  }
}

TEST_CASE("interleaved position: a model whose every layer takes the interleaved encoding is that encoding's model") {
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 10, 12, 4, 0);
  ModelConfig one = tiny_config("rope-interleaved");  // 1 layer: layer 0 takes the interleaved encoding
  for (const std::string type : {"alibi", "kerple", "t5_bias", "none"}) {
    INFO(type);
    const ModelConfig mixed = interleaved(one, 2, 0, type);
    REQUIRE(error_of(mixed).empty());
    CHECK(interleaved_logits(mixed, b) == interleaved_logits(tiny_config(type), b));
  }
}

TEST_CASE("interleaved position: the interleaved layers change the model, and only those") {
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 10, 12, 4, 0);
  const ModelConfig rope = four_layers("rope-interleaved");
  const ModelConfig irope = interleaved(rope, 4, 3, "none");
  CHECK(interleaved_logits(irope, b) != interleaved_logits(rope, b));
  ParameterStore params(DType::F64);
  const TransformerEncoder encoder(params, irope, DType::F64, false);
  for (int64_t layer = 0; layer < 4; ++layer) CHECK(encoder.layer_encoding(layer).rotates() == (layer != 3));
}

TEST_CASE("interleaved position: order blindness and position-freedom see both encodings") {
  const ModelConfig none = four_layers("none");
  CHECK_FALSE(order_blindness(none).empty());
  CHECK(none.position_free());
  const ModelConfig seen = interleaved(none, 2, 1, "rope");
  CHECK(order_blindness(seen).empty());
  CHECK_FALSE(seen.position_free());
  CHECK_FALSE(order_blindness(interleaved(none, 2, 1, "alibi")).empty());  // mean pooling, |i - j| alone
}

TEST_CASE("interleaved position: finite-difference gradients through T5 with KERPLE interleaved, in double") {
  const ModelConfig c = interleaved(four_layers("t5_bias"), 2, 1, "kerple");
  EncoderClassifier model(c, DType::F64);
  model.initialize(8);
  CHECK(model.parameters().contains("position.t5_bias.weight"));
  CHECK(model.parameters().contains("position.kerple.r1"));
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 12, 12, 9, 1);
  const auto entries = finite_difference_gradients(
      model, b, [](const std::string& name) { return name.rfind("position.", 0) == 0; }, 16);
  CHECK(entries.size() >= 20);  // 16 of T5's table, KERPLE's 4
  CHECK(worst_gradient_error(entries) < 1e-7);
}

// Bad model configs raise ModelConfigError naming the offending key.
#include <catch2/catch.hpp>

#include <functional>

#include "model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;
using Catch::Matchers::Contains;

namespace {

ModelConfig good() {
  ModelConfig c = tiny_config("rope-interleaved");
  c.d_model = 32;
  c.heads = 2;  // head dim 16
  return c;
}

// validate() and the model constructor both reject `c`, naming `key`.
void check_rejected(const ModelConfig& c, const std::string& key, const std::string& detail = "") {
  INFO("expected an error naming " << key);
  CHECK_THROWS_WITH(c.validate(), Contains(key));
  CHECK_THROWS_AS(c.validate(), ModelConfigError);
  CHECK_THROWS_AS(EncoderClassifier(c), ModelConfigError);
  if (!detail.empty()) CHECK_THROWS_WITH(c.validate(), Contains(detail));
}

// A change to good() that validate() must reject, naming `key` (and `detail`).
struct BadConfig {
  std::string key, detail;
  std::function<void(ModelConfig&)> change;
};

void check_rejected(const std::vector<BadConfig>& cases) {
  for (const BadConfig& b : cases) {
    ModelConfig c = good();
    b.change(c);
    check_rejected(c, b.key, b.detail);
  }
}

}  // namespace

TEST_CASE("model config: the defaults and the test configs are valid", "[config]") {
  CHECK_NOTHROW(ModelConfig{}.validate());
  for (const char* v : {"rope-interleaved", "rope-half", "sinusoidal", "learned", "t5_bias", "alibi", "none"})
    CHECK_NOTHROW(tiny_config(v).validate());
  ModelConfig c = good();
  c.attention = "linear";
  CHECK_NOTHROW(c.validate());
  c.position.fraction = 0.25;  // 4 of 16 dims
  CHECK_NOTHROW(c.validate());
  CHECK(c.rotary_dims() == 4);
}

TEST_CASE("model config: rope needs an even head dim", "[config]") {
  ModelConfig c = good();
  c.d_model = 18;  // 2 heads of 9
  check_rejected(c, "model.position", "even");
  c.position.type = "none";  // odd head dims are fine without rope
  CHECK_NOTHROW(c.validate());
}

TEST_CASE("model config: d_model must be divisible by heads", "[config]") {
  ModelConfig c = good();
  c.heads = 3;
  check_rejected(c, "model.heads", "divisible");
  c.position.type = "alibi";
  check_rejected(c, "model.heads");
}

TEST_CASE("model config: rope fraction must leave an even whole number of dims", "[config]") {
  ModelConfig c = good();
  for (double f : {0.1875, 0.3, 0.0, -0.5, 1.5}) {  // 3 dims (odd), 4.8 dims, zero, negative, > 1
    c.position.fraction = f;
    check_rejected(c, "model.position.fraction");
  }
  c.position.fraction = 0.5;
  CHECK_NOTHROW(c.validate());
}

TEST_CASE("model config: unknown names are rejected with the key and the allowed values", "[config]") {
  const std::vector<BadConfig> cases{
      {"model.position.type", "xpos", [](ModelConfig& c) { c.position.type = "xpos"; }},
      {"model.position.layout", "interleaved", [](ModelConfig& c) { c.position.layout = "gptj"; }},
      {"model.position.scaling", "yarn", [](ModelConfig& c) { c.position.scaling = "dynamic"; }},
      {"model.pooling", "last", [](ModelConfig& c) { c.pooling = "last"; }},
      {"model.norm", "sandwich", [](ModelConfig& c) { c.norm = "sandwich"; }},
      {"model.attention", "performer", [](ModelConfig& c) { c.attention = "performer"; }},
      {"model.activation", "swish", [](ModelConfig& c) { c.activation = "swish"; }},
  };
  check_rejected(cases);
}

TEST_CASE("model config: linear attention cannot take a logit bias", "[config]") {
  for (const char* type : {"t5_bias", "alibi"}) {
    ModelConfig c = good();
    c.attention = "linear";
    c.position.type = type;
    check_rejected(c, "model.attention", type);
  }
}

TEST_CASE("model config: numeric ranges", "[config]") {
  const std::vector<BadConfig> cases{
      {"model.dropout", "", [](ModelConfig& c) { c.dropout = 1.0; }},
      {"model.attention_dropout", "", [](ModelConfig& c) { c.attention_dropout = -0.1; }},
      {"model.num_classes", "", [](ModelConfig& c) { c.num_classes = 1; }},
      {"model.vocab_size", "", [](ModelConfig& c) { c.vocab_size = 0; }},
      {"model.layers", "", [](ModelConfig& c) { c.layers = 0; }},
      {"model.position.base", "", [](ModelConfig& c) { c.position.base = 1.0; }},
      {"model.position.scaling_factor", "",
       [](ModelConfig& c) { c.position.scaling = "linear"; c.position.scaling_factor = 0.5; }},
      // head dim 2: one rotated pair, and ntk's exponent r/(r-2) is undefined
      {"model.position.scaling", "ntk",
       [](ModelConfig& c) { c.d_model = 4; c.position.scaling = "ntk"; c.position.scaling_factor = 2; }},
      {"model.position.num_buckets", "",
       [](ModelConfig& c) { c.position.type = "t5_bias"; c.position.num_buckets = 31; }},
      {"model.position.max_len", "", [](ModelConfig& c) { c.position.type = "learned"; c.position.max_len = 0; }},
  };
  check_rejected(cases);
}

TEST_CASE("model config: a learned table shorter than the input is an error at forward, not a crash",
          "[config][model]") {
  ModelConfig c = tiny_config("learned");
  c.position.max_len = 8;
  const std::string pooling = GENERATE(std::string("mean"), std::string("cls"));
  c.pooling = pooling;
  EncoderClassifier model(c);
  model.initialize(1);
  // mean: 8 tokens fit; cls: the CLS token takes a position, so 8 tokens need 9 rows
  const ToyBatch fits = make_toy_batch(ToyTask::contains, 2, pooling == "cls" ? 7 : 8, c.vocab_size, 1, 0);
  const ToyBatch too_long = make_toy_batch(ToyTask::contains, 2, pooling == "cls" ? 8 : 9, c.vocab_size, 1, 0);
  ForwardContext ctx;
  CHECK_NOTHROW(model.logits(fits.input(), ctx));
  CHECK_THROWS_AS(model.logits(too_long.input(), ctx), ModelConfigError);
  CHECK_THROWS_WITH(model.logits(too_long.input(), ctx), Contains("model.position.max_len"));
}

TEST_CASE("model: malformed inputs are a ShapeError", "[model]") {
  EncoderClassifier model(tiny_config("none"));
  model.initialize(1);
  const std::vector<int32_t> tokens{1, 2, 3, 4, 5};
  const std::vector<int32_t> lengths{3, 2};
  ForwardContext ctx;
  CHECK_THROWS_AS(model.logits(ModelInput{tokens, lengths, 2, 3}, ctx), ShapeError);
}

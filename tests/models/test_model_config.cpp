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

// validate() rejects `c`, naming `key` (the model assumes a validated config).
void check_rejected(const ModelConfig& c, const std::string& key, const std::string& detail = "") {
  INFO("expected an error naming " << key);
  CHECK_THROWS_WITH(c.validate(), Contains(key));
  CHECK_THROWS_AS(c.validate(), ModelConfigError);
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
  for (const char* v : {"rope-interleaved", "rope-half", "sinusoidal", "learned", "t5_bias", "alibi",
                        "alibi_directional", "kerple", "fire", "none", "xpos", "p_rope"})
    CHECK_NOTHROW(tiny_config(v).validate());
  ModelConfig c = good();
  c.attention = AttentionKind::linear;
  CHECK_NOTHROW(c.validate());
  c.position.set("fraction", 0.25);  // 4 of 16 dims
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
    c.position.set("fraction", f);
    check_rejected(c, "model.position.fraction");
  }
  c.position.set("fraction", 0.5);
  CHECK_NOTHROW(c.validate());
}

TEST_CASE("model config: an unknown position type is rejected with the key and the table's names", "[config]") {
  check_rejected({{"model.position.type", "t5_bias, alibi", [](ModelConfig& c) { c.position.type = "rope2d"; }}});
}

TEST_CASE("model config: each option enum exports its names once, unknown names do not parse", "[config]") {
  CHECK(option_names<NormPlacement>() == std::vector<std::string>{"pre", "post"});
  CHECK(option_names<Pooling>() == std::vector<std::string>{"mean", "cls", "max"});
  CHECK(option_names<AttentionKind>() == std::vector<std::string>{"softmax", "linear"});
  CHECK(option_names<HiddenActivation>() == std::vector<std::string>{"gelu", "gelu_tanh", "relu"});
  CHECK(option_names<RotaryLayout>() == std::vector<std::string>{"interleaved", "half"});
  CHECK(option_names<RopeScaling>() ==
        std::vector<std::string>{"none", "linear", "ntk", "yarn", "llama3", "dynamic_ntk", "longrope"});
  CHECK(position_encoding_names() == std::vector<std::string>{"rope", "sinusoidal", "learned", "t5_bias", "alibi",
                                                              "alibi_directional", "kerple", "fire", "none", "xpos",
                                                              "p_rope", "proportional", "sandwich", "cope"});
  CHECK(parse_option<Pooling>("cls") == Pooling::cls);
  CHECK(std::string(option_name(HiddenActivation::gelu_tanh)) == "gelu_tanh");
  CHECK_FALSE(parse_option<NormPlacement>("sandwich"));
  CHECK_FALSE(parse_option<RotaryLayout>("gptj"));
  CHECK_FALSE(parse_option<RopeScaling>("dynamic"));
  CHECK_FALSE(parse_option<Pooling>("CLS"));  // names are case-sensitive, as in YAML
}

TEST_CASE("model config: a learned table must hold the window plus the CLS position", "[config]") {
  ModelConfig c = good();
  c.position.type = "learned";
  c.position.set("max_len", 512);
  CHECK_NOTHROW(c.validate_length(512, "data.max_len"));  // mean pooling: 512 tokens, 512 positions
  c.pooling = Pooling::cls;
  CHECK_THROWS_AS(c.validate_length(512, "data.max_len"), ModelConfigError);
  CHECK_THROWS_WITH(c.validate_length(512, "data.max_len"),
                    Contains("model.position.max_len") && Contains("data.max_len = 512") && Contains("513"));
  CHECK_NOTHROW(c.validate_length(511, "data.max_len"));
  c.position.type = "rope";  // no table: any length
  CHECK_NOTHROW(c.validate_length(100000, "data.max_len"));
}

TEST_CASE("model config: linear_rotation applies to linear attention only", "[config]") {
  ModelConfig c = good();
  c.linear_rotation = LinearRotation::before_feature_map;
  check_rejected(c, "model.linear_rotation", "linear only");
  c.attention = AttentionKind::linear;
  CHECK_NOTHROW(c.validate());
}

TEST_CASE("model config: linear attention cannot take a logit bias", "[config]") {
  for (const char* type : {"t5_bias", "alibi", "alibi_directional", "kerple"}) {
    ModelConfig c = good();
    c.attention = AttentionKind::linear;
    c.position.type = type;
    check_rejected(c, "model.attention", type);
  }
}

namespace {

// One out-of-range value per case, each naming its key.
std::vector<BadConfig> numeric_range_cases() {
  return {
      {"model.dropout", "", [](ModelConfig& c) { c.dropout = 1.0; }},
      {"model.attention_dropout", "", [](ModelConfig& c) { c.attention_dropout = -0.1; }},
      {"model.num_classes", "", [](ModelConfig& c) { c.num_classes = 1; }},
      {"model.vocab_size", "", [](ModelConfig& c) { c.vocab_size = 0; }},
      {"model.layers", "", [](ModelConfig& c) { c.layers = 0; }},
      {"model.position.base", "", [](ModelConfig& c) { c.position.set("base", 1.0); }},
      {"model.position.scaling_factor", "",
       [](ModelConfig& c) {
         c.position.set("scaling", RopeScaling::linear);
         c.position.set("scaling_factor", 0.5);
       }},
      // head dim 2: one rotated pair, and ntk's exponent r/(r-2) is undefined
      {"model.position.scaling", "ntk",
       [](ModelConfig& c) {
         c.d_model = 4;
         c.position.set("scaling", RopeScaling::ntk);
         c.position.set("scaling_factor", 2);
       }},
      {"model.position.scaling", "linear attention",
       [](ModelConfig& c) {
         c.attention = AttentionKind::linear;
         c.position.set("scaling", RopeScaling::yarn);
       }},
      {"model.position.num_buckets", "",
       [](ModelConfig& c) {
         c.position.type = "t5_bias";
         c.position.set("num_buckets", 31);
       }},
      {"model.position.max_len", "",
       [](ModelConfig& c) {
         c.position.type = "learned";
         c.position.set("max_len", 0);
       }},
      {"model.position.scale", ">= 0",
       [](ModelConfig& c) {
         c.position.type = "sinusoidal";
         c.position.set("scale", -1);
       }},
      {"model.position.scale", "finite",
       [](ModelConfig& c) {
         c.position.type = "learned";
         c.position.set("scale", std::nan(""));
       }},
      {"model.position.xpos_scale_base", "> 0",
       [](ModelConfig& c) {
         c.position.type = "xpos";
         c.position.set("xpos_scale_base", 0.0);
       }},
      {"model.position.xpos_gamma", "> 0",
       [](ModelConfig& c) {
         c.position.type = "xpos";
         c.position.set("xpos_gamma", 0.0);
       }},
      {"model.position.kept_frequency_fraction", "",
       [](ModelConfig& c) {
         c.position.type = "p_rope";
         c.position.set("kept_frequency_fraction", 1.5);
       }},
      // head dim 16: 8 pairs, of which 0.3 is 2.4
      {"model.position.kept_frequency_fraction", "whole number of pairs",
       [](ModelConfig& c) {
         c.position.type = "p_rope";
         c.position.set("kept_frequency_fraction", 0.3);
       }},
      {"model.attention", "xpos",
       [](ModelConfig& c) {
         c.position.type = "xpos";
         c.attention = AttentionKind::linear;
       }},
      {"model.position.type", "xpos needs an even head dimension",
       [](ModelConfig& c) {
         c.position.type = "xpos";
         c.d_model = 18;
       }},
  };
}

}  // namespace

TEST_CASE("model config: numeric ranges", "[config]") { check_rejected(numeric_range_cases()); }

TEST_CASE("model config: a learned table shorter than the input is an error at forward, not a crash",
          "[config][model]") {
  ModelConfig c = tiny_config("learned");
  c.position.set("max_len", 8);
  const std::string pooling = GENERATE(std::string("mean"), std::string("cls"));
  c.pooling = option<Pooling>(pooling);
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

TEST_CASE("model config: a key of another encoding set away from its default is rejected", "[config]") {
  const std::vector<BadConfig> cases{
      {"model.position.scaling", "rope, not sinusoidal",
       [](ModelConfig& c) {
         c.position.type = "sinusoidal";
         c.position.set("scaling", RopeScaling::ntk);
       }},
      {"model.position.base", "rope or xpos or p_rope or proportional, not alibi",
       [](ModelConfig& c) {
         c.position.type = "alibi";
         c.position.set("base", 500);
       }},
      {"model.position.per_layer", "t5_bias, not rope", [](ModelConfig& c) { c.position.set("per_layer", true); }},
      {"model.position.scale", "sinusoidal or learned, not rope", [](ModelConfig& c) { c.position.set("scale", 0.5); }},
      {"model.position.scale", "sinusoidal or learned, not none",
       [](ModelConfig& c) {
         c.position.type = "none";
         c.position.set("scale", 2);
       }},
      {"model.position.max_len", "learned, not t5_bias",
       [](ModelConfig& c) {
         c.position.type = "t5_bias";
         c.position.set("max_len", 2001);
       }},
      // xPos does not scale the values, and p_rope is not rope's fraction
      {"model.position.rotary_value", "rope, not xpos",
       [](ModelConfig& c) {
         c.position.type = "xpos";
         c.position.set("rotary_value", true);
       }},
      {"model.position.fraction", "rope, not p_rope",
       [](ModelConfig& c) {
         c.position.type = "p_rope";
         c.position.set("fraction", 0.5);
       }},
      {"model.position.xpos_gamma", "xpos, not rope", [](ModelConfig& c) { c.position.set("xpos_gamma", 0.5); }},
  };
  check_rejected(cases);
  for (const char* type : {"rope", "sinusoidal", "learned", "t5_bias", "alibi", "alibi_directional", "kerple", "fire",
                           "none", "xpos", "p_rope"}) {
    ModelConfig c = good();
    c.position = PositionConfig{};  // every key at its default
    c.position.type = type;
    CHECK_NOTHROW(c.validate());
  }
}

// At initialisation the model's input (token embeddings times their
// multiplier, plus the absolute position signal) has the RMS that
// model.embedding_scale and model.position.scale state: by default BERT's
// N(0, init_std) tokens for every encoding, and sinusoidal or learned
// positions at the same RMS as the tokens (ratio position.scale).
#include <catch2/catch.hpp>

#include <cmath>

#include "model_test_support.h"
#include "models/position_encoding.h"
#include "models/sinusoidal_encoding.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

double rms(const std::vector<double>& v) { return std::sqrt(dot(v, v) / static_cast<double>(v.size())); }

constexpr int64_t kLength = 512;

ModelConfig wide(const std::string& type) {
  ModelConfig c = tiny_config(type, 1000);
  c.d_model = 128;
  c.heads = 4;
  if (type == "learned") c.position.set("max_len", kLength);
  return c;
}

// What the encoder feeds its first block at init, split into its two terms.
struct InputScales {
  double tokens, positions;
  std::vector<double> position_signal;  // [kLength, d_model]
};

InputScales measure(const ModelConfig& c, uint64_t seed = 42) {
  EncoderClassifier model(c, DType::F64);
  model.initialize(seed);
  InputScales s;
  s.tokens = rms(model.parameters().var("embed.tokens.weight").value().to_doubles()) * c.token_multiplier();
  // The encoder's own hook, on a store drawn like the model's (draws depend on seed and name only).
  ParameterStore store(DType::F64);
  const auto encoding = make_position_encoding(store, c);
  store.allocate(seed);
  const Var zeros(Tensor::zeros({1, kLength, c.d_model}, DType::F64));
  s.position_signal = encoding->add_to_embeddings(store, zeros, Positions()).value().to_doubles();
  s.positions = rms(s.position_signal);
  return s;
}

}  // namespace

TEST_CASE("embedding scale: by default sinusoidal positions have the RMS of BERT's tokens", "[sinusoidal][init]") {
  const ModelConfig c = wide("sinusoidal");
  const InputScales s = measure(c);
  INFO("token RMS " << s.tokens << ", position RMS " << s.positions);
  CHECK(s.tokens == Approx(c.init_std).epsilon(0.02));         // 128000 draws: within 1%
  CHECK(s.positions == Approx(c.init_std).epsilon(1e-12));     // every row of the table has RMS sqrt(1/2)
  CHECK(s.tokens / s.positions == Approx(1.0).epsilon(0.02));  // the bare table would give 0.028
}

TEST_CASE("embedding scale: position.scale is the position / token RMS ratio", "[sinusoidal][learned][init]") {
  for (const char* type : {"sinusoidal", "learned"})
    for (const double scale : {0.25, 3.0}) {
      ModelConfig c = wide(type);
      c.position.set("scale", scale);
      const InputScales s = measure(c);
      INFO(type << " scale " << scale << ": token RMS " << s.tokens << ", position RMS " << s.positions);
      CHECK(s.positions / s.tokens == Approx(scale).epsilon(0.03));
    }
}

TEST_CASE("embedding scale: sqrt_d with position.scale sqrt(1/2) is Vaswani's, the table added as it is",
          "[sinusoidal][init]") {
  ModelConfig c = wide("sinusoidal");
  c.embedding_scale = EmbeddingScale::sqrt_d;
  c.position.set("scale", std::sqrt(0.5));
  const InputScales s = measure(c);
  INFO("token RMS " << s.tokens << ", position RMS " << s.positions);
  CHECK(s.tokens == Approx(1.0).epsilon(0.02));  // N(0, d^-1/2) times sqrt(d)
  CHECK(s.position_signal == sinusoidal_table(kLength, c.d_model, DType::F64).to_doubles());  // multiplier exactly 1
  CHECK(s.tokens / s.positions == Approx(std::sqrt(2.0)).epsilon(0.03));
}

TEST_CASE("embedding scale: learned tokens and positions share BERT's init, and sqrt_d scales both",
          "[learned][init]") {
  ModelConfig c = wide("learned");
  InputScales s = measure(c);
  CHECK(s.tokens == Approx(c.init_std).epsilon(0.02));
  CHECK(s.positions == Approx(c.init_std).epsilon(0.02));
  c.embedding_scale = EmbeddingScale::sqrt_d;
  s = measure(c);
  CHECK(s.tokens == Approx(1.0).epsilon(0.02));
  CHECK(s.positions == Approx(1.0).epsilon(0.02));
}

TEST_CASE("embedding scale: the default tokens are the same draws for every encoding", "[init]") {
  // Sinusoidal by default is `none` plus a position signal: same token table, multiplier 1.
  EncoderClassifier none(wide("none"), DType::F64), sinusoidal(wide("sinusoidal"), DType::F64);
  none.initialize(7);
  sinusoidal.initialize(7);
  CHECK(none.config().token_multiplier() == 1.0);
  CHECK(sinusoidal.config().token_multiplier() == 1.0);
  CHECK(none.parameters().var("embed.tokens.weight").value().to_doubles() ==
        sinusoidal.parameters().var("embed.tokens.weight").value().to_doubles());
}

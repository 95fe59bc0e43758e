// At initialisation the token embeddings and the absolute position signal have
// the scale their papers pair them with: sinusoidal (Vaswani) N(0, d^-1/2)
// tokens times sqrt(d), unit scale, next to a sin/cos table of RMS 1/sqrt(2);
// learned (BERT) tokens and positions both N(0, init_std).
#include <catch2/catch.hpp>

#include <cmath>

#include "model_test_support.h"
#include "models/sinusoidal_encoding.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

double rms(const std::vector<double>& v) { return std::sqrt(dot(v, v) / static_cast<double>(v.size())); }

ModelConfig wide(const std::string& type) {
  ModelConfig c = tiny_config(type, 1000);
  c.d_model = 128;
  c.heads = 4;
  if (type == "learned") c.position.max_len = 512;
  return c;
}

}  // namespace

TEST_CASE("embedding scale: sinusoidal tokens are unit scale next to the table (ratio ~ sqrt 2)",
          "[sinusoidal][init]") {
  const ModelConfig c = wide("sinusoidal");
  EncoderClassifier model(c, DType::F64);
  model.initialize(42);
  const double d = static_cast<double>(c.d_model);
  const double tokens = rms(model.parameters().var("embed.tokens.weight").value().to_doubles()) * std::sqrt(d);
  const double positions = rms(sinusoidal_table(512, c.d_model, DType::F64).to_doubles());
  INFO("token RMS " << tokens << ", position RMS " << positions);
  CHECK(tokens == Approx(1.0).epsilon(0.02));  // 128000 draws: within 1% of 1
  CHECK(positions == Approx(1.0 / std::sqrt(2.0)).epsilon(0.01));
  CHECK(tokens / positions == Approx(std::sqrt(2.0)).epsilon(0.03));  // BERT's 0.02 would give 0.32
}

TEST_CASE("embedding scale: learned tokens and positions share BERT's init (ratio ~ 1)", "[learned][init]") {
  const ModelConfig c = wide("learned");
  EncoderClassifier model(c, DType::F64);
  model.initialize(42);
  const double tokens = rms(model.parameters().var("embed.tokens.weight").value().to_doubles());
  const double positions = rms(model.parameters().var("embed.positions.weight").value().to_doubles());
  INFO("token RMS " << tokens << ", position RMS " << positions);
  CHECK(tokens == Approx(c.init_std).epsilon(0.02));
  CHECK(tokens / positions == Approx(1.0).epsilon(0.03));
}

// T5's bias table start (model.position.table_init): Hugging Face's
// N(0, d_model^-1/2) by default, or N(0, model.init_std); the same draws
// either way (a pure function of seed and name), only the std differs.
#include <catch2/catch.hpp>

#include <cmath>

#include "model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

std::vector<double> table_start(const ModelConfig& c, const std::string& name) {
  EncoderClassifier model(c, DType::F64);
  model.initialize(11);
  return model.parameters().value(model.parameters().id(name)).to_doubles();
}

ModelConfig t5_config(int64_t d_model, bool per_layer) {
  ModelConfig c = tiny_config("t5_bias");
  c.d_model = d_model;
  c.heads = 4;
  c.layers = 2;
  c.position.set("per_layer", per_layer);
  return c;
}

double rms_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s / static_cast<double>(v.size()));
}

}  // namespace

TEST_CASE("t5 bias: table_init inverse_sqrt_d_model starts the table at N(0, d_model^-1/2)", "[t5]") {
  const bool per_layer = GENERATE(false, true);
  const std::string name = per_layer ? "layers.1.attn.t5_bias.weight" : "position.t5_bias.weight";
  ModelConfig wide = t5_config(64, per_layer), narrow = wide;
  narrow.position.set("table_init", T5TableInit::init_std);
  CHECK(wide.position.choice<T5TableInit>("table_init") == T5TableInit::inverse_sqrt_d_model);  // the default
  const std::vector<double> a = table_start(narrow, name), b = table_start(wide, name);
  REQUIRE(a.size() == 32 * 4);
  const double ratio = (1.0 / 8.0) / narrow.init_std;  // d_model^-1/2 = 1/8 against 0.02
  for (size_t i = 0; i < a.size(); ++i) CHECK(b[i] == Approx(a[i] * ratio).epsilon(1e-12));
  // 128 draws: their RMS is the std to within about 20%
  CHECK(rms_of(a) == Approx(0.02).epsilon(0.2));
  CHECK(rms_of(b) == Approx(0.125).epsilon(0.2));
  // the other weights start as before
  CHECK(table_start(narrow, "layers.0.attn.q.weight") == table_start(wide, "layers.0.attn.q.weight"));
}

// A new encoding enters through the factory table alone: a toy encoding that
// adds p * w (w a learned [d_model] vector) to position p is registered here,
// and the config validation, the model and training pick it up by name.
#include <catch2/catch.hpp>

#include <algorithm>

#include "model_test_support.h"
#include "models/position_encoding.h"

using namespace rotor;
using namespace rotor::model_test;
using Catch::Matchers::Contains;

namespace {

class ToyEncoding : public PositionEncoding {
 public:
  ToyEncoding(ParameterStore& store, const ModelConfig& c)
      : slope_(store.declare("position.toy.weight", {c.d_model}, ParameterInit::normal(c.position.number("toy_std")))) {
  }

  Var add_to_embeddings(const ParameterStore& store, const Var& x, const Positions&) const override {
    const int64_t n = x.size(1), d = x.size(2);
    std::vector<double> p(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<double>(i);
    const Var positions(Tensor::from_doubles({n, 1}, store.dtype(), p));
    return add(x, mul(positions, reshape(store.var(slope_), {1, d})));  // [N, d] broadcast over the batch
  }

 private:
  ParameterId slope_;
};

void register_toy() {
  for (const std::string& name : position_encoding_names())
    if (name == "toy") return;
  PositionEncodingSpec spec;
  spec.name = "toy";
  spec.validate = [](const ModelConfig& c) {
    if (c.d_model > 64) throw ModelConfigError("model.d_model: the toy encoding takes at most 64 dims");
  };
  spec.make = [](ParameterStore& store, const ModelConfig& c) { return std::make_unique<ToyEncoding>(store, c); };
  spec.options = {PositionOption::number("toy_std", 1.0, "std of the toy slope").above(0)};  // its key, declared here
  register_position_encoding(std::move(spec));
}

}  // namespace

TEST_CASE("position encoding table: a toy encoding added through the table alone", "[position][model]") {
  ModelConfig c = tiny_config("none");
  c.position.type = "toy";
  const std::vector<std::string> before = position_encoding_names();
  if (std::find(before.begin(), before.end(), "toy") == before.end())  // first run in this process
    CHECK_THROWS_WITH(c.validate(), Contains("model.position.type") && Contains("unknown value 'toy'"));
  register_toy();
  CHECK(position_encoding_names().back() == "toy");
  CHECK_NOTHROW(c.validate());
  ModelConfig wide = c;
  wide.d_model = 128;
  CHECK_THROWS_WITH(wide.validate(), Contains("toy encoding"));  // its own validation runs at load
  PositionEncodingSpec again = position_encoding("toy");
  CHECK_THROWS_WITH(register_position_encoding(again), Contains("already registered"));

  // Its key is declared in its row alone: it gets a default, a range check and the foreign-key check.
  CHECK(c.position.number("toy_std") == 1.0);
  ModelConfig zero = c;
  zero.position.set("toy_std", 0.0);
  CHECK_THROWS_WITH(zero.validate(), Contains("model.position.toy_std: must be a finite number > 0"));
  ModelConfig foreign = tiny_config("alibi");
  foreign.position.set("toy_std", 2.0);
  CHECK_THROWS_WITH(foreign.validate(), Contains("model.position.toy_std: applies to position.type toy, not alibi"));
  CHECK_THROWS_WITH(c.position.set("toy_std", "wide"), Contains("model.position.toy_std: expected number"));
  CHECK_THROWS_WITH(c.position.set("toy_width", 1.0), Contains("no position encoding has this key"));
  PositionEncodingSpec clash = again;
  clash.name = "toy_clash";
  clash.options = {PositionOption::number("base", 500.0, "rope's key with another default")};
  CHECK_THROWS_WITH(register_position_encoding(clash),
                    Contains("model.position.base: toy_clash declares it differently from rope"));

  EncoderClassifier toy(c, DType::F64), none(tiny_config("none"), DType::F64);
  REQUIRE(toy.parameters().contains("position.toy.weight"));
  toy.initialize(3);
  none.initialize(3);
  const ToyBatch b = make_toy_batch(ToyTask::order, 4, 9, c.vocab_size, 1, 0);
  CHECK(eval_logits(toy, b) != eval_logits(none, b));  // same weights otherwise: the encoding acts

  // the gradient reaches the toy parameter, and the order task (needs position) becomes learnable
  TrainOptions o;
  o.task = ToyTask::order;
  ModelConfig trained = c;
  trained.d_model = 32;
  trained.d_ff = 64;
  trained.layers = 2;
  trained.init_std = 0.2;  // as the order-task configs of test_training.cpp
  EncoderClassifier model(trained);
  const TrainResult r = train_toy(model, o);
  INFO("toy encoding on the order task: loss " << r.first_loss << " -> " << r.final_loss << ", eval accuracy "
                                               << r.eval_accuracy);
  CHECK(r.eval_accuracy > 0.8);
}

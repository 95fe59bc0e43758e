// An encoding row's `reversal_symmetric` and `position_free` are claims about
// the model: with mean or max pooling (any pooling when position-free), a
// classifier built with it gives a sequence and its reverse the same logits
// (float64, to rounding), and one built with any other encoding does not.
// order_blindness() reads those properties to warn.
#include <catch2/catch.hpp>

#include <algorithm>

#include "model_test_support.h"
#include "models/order_blindness.h"
#include "models/position_encoding.h"

using namespace rotor;
using namespace rotor::model_test;
using Catch::Matchers::Contains;

namespace {

// Each sequence of `b` with its real tokens reversed (padding stays at the end).
ToyBatch reversed(ToyBatch b) {
  for (int64_t i = 0; i < b.batch; ++i) {
    int32_t* t = &b.tokens[static_cast<size_t>(i * b.seq_len)];
    std::reverse(t, t + b.lengths[static_cast<size_t>(i)]);
  }
  return b;
}

double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double most = 0.0;
  for (size_t i = 0; i < a.size(); ++i) most = std::max(most, std::abs(a[i] - b[i]));
  return most;
}

}  // namespace

TEST_CASE("order blindness: the encodings declared reversal-symmetric are exactly those that cannot see a reversal",
          "[position][model]") {
  const Pooling pooling = GENERATE(Pooling::mean, Pooling::max, Pooling::cls);
  const ToyBatch b = make_toy_batch(ToyTask::order, 4, 12, 12, 5, 0);
  for (const PositionEncodingSpec& spec : position_encodings()) {
    if (spec.name == "toy") continue;  // registered by another test, for the table alone
    ModelConfig c = tiny_config(spec.name);
    c.pooling = pooling;
    EncoderClassifier model(c, DType::F64);
    model.initialize(7);
    spread_zero_parameters(model.parameters(), 8);
    const double difference = largest_difference(eval_logits(model, b), eval_logits(model, reversed(b)));
    const bool blind = !order_blindness(c).empty();
    INFO(spec.name << " with pooling " << option_name(pooling) << ": logits differ by " << difference);
    CHECK(blind == (spec.position_free || (spec.reversal_symmetric && pooling != Pooling::cls)));
    if (blind)
      CHECK(difference < 1e-12);
    else
      CHECK(difference > 1e-6);
  }
}

TEST_CASE("order blindness: the message names the keys and what sees direction", "[position][model]") {
  ModelConfig c = tiny_config("alibi");
  CHECK_THAT(order_blindness(c), Contains("model.position.type alibi with model.pooling mean cannot tell a sequence "
                                          "from its reverse") &&
                                     Contains("|i - j|") && Contains("model.pooling: cls") && Contains("rope") &&
                                     Contains("alibi_directional") && !Contains("kerple"));
  c.pooling = Pooling::cls;
  CHECK(order_blindness(c).empty());
  ModelConfig none = tiny_config("none");
  none.pooling = Pooling::cls;  // no signal for the CLS slot to see either
  CHECK_THAT(order_blindness(none), Contains("no position signal") && !Contains("model.pooling: cls"));
  CHECK(order_blindness(tiny_config("t5_bias")).empty());  // its encoder buckets tell before from after
}

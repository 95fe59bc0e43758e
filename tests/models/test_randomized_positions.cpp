// Randomized positions (Ruoss et al. 2023, model.position.randomized): the
// draw (a pure function of seed and step: sorted, distinct, in range, every
// subset alike), evaluation untouched, every encoding at explicit positions
// equal to its contiguous path at 0..N-1, the relative encodings' logits a
// function of p_i - p_j alone (positions shifted by up to 1e5), and the keys'
// config checks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "model_test_support.h"
#include "models/positions.h"

using namespace rotor;
using namespace rotor::model_test;
using Catch::Matchers::Contains;

namespace {

const char* const kRandomizedEncodings[] = {
    "rope-interleaved",  "rope-half", "sinusoidal", "learned", "t5_bias", "alibi",
    "alibi_directional", "kerple",    "fire",       "xpos",    "p_rope"};

// "alibi_directional" with learned slopes, so its parameters are in play too.
ModelConfig randomized_config(const std::string& variant, bool cls = false) {
  ModelConfig c = tiny_config(variant);
  c.layers = 2;
  if (variant == "alibi_directional") c.position.set("learned_slopes", true);
  if (cls) c.pooling = Pooling::cls;
  return c;
}

std::vector<double> logits_at(const ModelConfig& c, const ToyBatch& b, const Positions& positions) {
  EncoderClassifier model(c, DType::F64);
  model.initialize(3);
  NoGradGuard no_grad;
  ForwardContext ctx;
  return model.logits(b.input(), ctx, positions).value().to_doubles();
}

double max_randomized_difference(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

Positions shifted(Positions p, int64_t by) {
  for (int64_t& x : p.values) x += by;
  return p;
}

}  // namespace

TEST_CASE("randomized positions: a sorted subset of 0..range-1, a pure function of seed and step", "[positions]") {
  const ForwardContext at_step{true, 11, 5}, again{true, 11, 5}, next_step{true, 11, 6}, other_seed{true, 12, 5};
  const Positions p = random_positions(at_step.position_key(), 40, 100);
  REQUIRE(p.values.size() == 40);
  CHECK(std::is_sorted(p.values.begin(), p.values.end()));
  CHECK(std::adjacent_find(p.values.begin(), p.values.end()) == p.values.end());  // distinct
  CHECK(p.values.front() >= 0);
  CHECK(p.values.back() < 100);
  CHECK(random_positions(again.position_key(), 40, 100).values == p.values);
  CHECK(random_positions(next_step.position_key(), 40, 100).values != p.values);
  CHECK(random_positions(other_seed.position_key(), 40, 100).values != p.values);
  CHECK(random_positions(at_step.position_key(), 100, 100).values == Positions().list(100));  // the whole range
  CHECK_THROWS_WITH(random_positions(at_step.position_key(), 101, 100), Contains("model.position.max_positions"));
}

TEST_CASE("randomized positions: every position is drawn equally often", "[positions]") {
  // 6 of 16, 8000 draws: each position 3000 times in expectation (sd ~ 43).
  std::vector<int64_t> count(16, 0);
  for (uint64_t step = 0; step < 8000; ++step)
    for (int64_t p : random_positions(ForwardContext{true, 3, step}.position_key(), 6, 16).values) ++count[p];
  for (int64_t c : count) CHECK(std::abs(c - 3000) < 250);
}

TEST_CASE("randomized positions: a training forward uses the context's draw", "[positions][model]") {
  const std::string variant = GENERATE(values<std::string>({"rope-interleaved", "learned", "t5_bias", "fire"}));
  CAPTURE(variant);
  ModelConfig c = randomized_config(variant, true);
  randomize_positions(c, 64);
  EncoderClassifier model(c, DType::F64);
  model.initialize(3);
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 12, c.vocab_size, 2, 0);
  NoGradGuard no_grad;
  ForwardContext ctx{true, 9, 4}, explicit_ctx{true, 9, 4}, contiguous_ctx{true, 9, 4};
  const std::vector<double> trained = model.logits(b.input(), ctx).value().to_doubles();
  const Positions drawn = random_positions(ctx.position_key(), 13, 64);  // 12 tokens + CLS
  CHECK(model.logits(b.input(), explicit_ctx, drawn).value().to_doubles() == trained);
  CHECK(model.logits(b.input(), contiguous_ctx, Positions()).value().to_doubles() != trained);
}

TEST_CASE("randomized positions: evaluation is the model without them, bit for bit", "[positions][model]") {
  const std::string variant = GENERATE(from_range(std::begin(kRandomizedEncodings), std::end(kRandomizedEncodings)));
  const bool cls = GENERATE(false, true);
  CAPTURE(variant, cls);
  ModelConfig plain = randomized_config(variant, cls);
  if (variant == "learned") plain.position.set("max_len", 64);
  ModelConfig randomized = plain;
  randomize_positions(randomized, 64);
  const ToyBatch b = make_toy_batch(ToyTask::order, 4, 15, plain.vocab_size, 5, 0, 3);
  EncoderClassifier a(plain), r(randomized);
  a.initialize(8);
  r.initialize(8);
  CHECK(eval_logits(a, b) == eval_logits(r, b));
}

TEST_CASE("randomized positions: with randomized_evaluation an evaluation forward draws them too",
          "[positions][model]") {
  const std::string variant = GENERATE(values<std::string>({"rope-interleaved", "sinusoidal", "alibi"}));
  CAPTURE(variant);
  ModelConfig c = randomized_config(variant, false);
  randomize_positions(c, 64);
  c.position.set("randomized_evaluation", true);
  EncoderClassifier model(c, DType::F64);
  model.initialize(3);
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 12, c.vocab_size, 2, 0);
  NoGradGuard no_grad;
  ForwardContext eval{false, 9, 4}, again{false, 9, 4}, explicit_ctx{false, 9, 4}, contiguous{false, 9, 4},
      other_batch{false, 9, 5};
  const std::vector<double> drawn = model.logits(b.input(), eval).value().to_doubles();
  CHECK(model.logits(b.input(), again).value().to_doubles() == drawn);
  CHECK(model.logits(b.input(), explicit_ctx, random_positions(eval.position_key(), 12, 64)).value().to_doubles() ==
        drawn);
  CHECK(model.logits(b.input(), contiguous, Positions()).value().to_doubles() != drawn);
  CHECK(model.logits(b.input(), other_batch).value().to_doubles() != drawn);
}

TEST_CASE("randomized positions: explicit 0..N-1 is the contiguous model", "[positions][model]") {
  const std::string variant = GENERATE(from_range(std::begin(kRandomizedEncodings), std::end(kRandomizedEncodings)));
  const bool cls = GENERATE(false, true);
  CAPTURE(variant, cls);
  const ModelConfig c = randomized_config(variant, cls);
  const ToyBatch b = make_toy_batch(ToyTask::order, 4, 15, c.vocab_size, 5, 0, 3);
  const int64_t n = 15 + (cls ? 1 : 0);
  const std::vector<double> contiguous = logits_at(c, b, Positions());
  CHECK(max_randomized_difference(logits_at(c, b, Positions{Positions().list(n)}), contiguous) < 1e-12);
  // and other positions give another model (all but none take positions)
  const Positions spread = random_positions(RandomKey{1, 2, 3}, n, 60);
  CHECK(max_randomized_difference(logits_at(c, b, spread), contiguous) > 1e-6);
}

TEST_CASE("randomized positions: relative encodings see only p_i - p_j, even 1e5 further on", "[positions][model]") {
  const std::string variant = GENERATE(values<std::string>(
      {"rope-interleaved", "rope-half", "t5_bias", "alibi", "alibi_directional", "kerple", "xpos", "p_rope"}));
  const int64_t shift = GENERATE(1, 12345, 100000);
  CAPTURE(variant, shift);
  const ModelConfig c = randomized_config(variant, true);
  const ToyBatch b = make_toy_batch(ToyTask::order, 4, 20, c.vocab_size, 6, 0, 3);
  const Positions p = random_positions(RandomKey{4, 5, 6}, 21, 200);
  const std::vector<double> near = logits_at(c, b, p);
  // float64 angles of positions near 1e5 carry ~1e-11 of rounding
  CHECK(max_randomized_difference(logits_at(c, b, shifted(p, shift)), near) < 1e-9);
}

TEST_CASE("randomized positions: config keys", "[positions][config]") {
  SECTION("every encoding that takes positions declares them; none rejects them, naming the key") {
    for (const char* variant : kRandomizedEncodings) {
      ModelConfig c = randomized_config(variant);
      randomize_positions(c, 64);
      CHECK_NOTHROW(c.validate());
    }
    ModelConfig none = tiny_config("none");
    none.position.set("randomized", true);
    CHECK_THROWS_WITH(none.validate(), Contains("model.position.randomized") && Contains("not none"));
    ModelConfig range = tiny_config("none");
    range.position.set("max_positions", 100);
    CHECK_THROWS_WITH(range.validate(), Contains("model.position.max_positions") && Contains("not none"));
  }
  SECTION("learned needs a row for every position it may draw") {
    ModelConfig c = tiny_config("learned");  // max_len 64
    c.position.set("randomized", true);
    c.position.set("max_positions", 65);
    CHECK_THROWS_AS(c.validate(), ModelConfigError);
    CHECK_THROWS_WITH(c.validate(), Contains("model.position.max_len") && Contains("max_positions = 65"));
    c.position.set("max_positions", 64);
    CHECK_NOTHROW(c.validate());
  }
  SECTION("max_positions must hold the training window, CLS included") {
    ModelConfig c = tiny_config("rope-interleaved");
    c.position.set("randomized", true);
    c.position.set("max_positions", 32);
    CHECK_NOTHROW(c.validate_training_length(32, "data.max_len"));
    c.pooling = Pooling::cls;
    CHECK_THROWS_WITH(c.validate_training_length(32, "data.max_len"),
                      Contains("model.position.max_positions") && Contains("data.max_len = 32"));
    CHECK_NOTHROW(c.validate_length(1000, "data.eval_max_len"));  // evaluation takes 0..N-1, any length
    c.position.set("randomized", false);
    CHECK_NOTHROW(c.validate_training_length(1000, "data.max_len"));
  }
}

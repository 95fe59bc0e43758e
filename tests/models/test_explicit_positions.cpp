// Positions given by the data (ModelInput::positions, models/position_groups.h):
// grouping rows by their positions, 0..N-1 equal to the model without them to
// the bit, a batch of rows at different positions equal to each row alone,
// tokens that share a position free to trade places, repeated and descending
// positions alike on the fused and composed kernels, gradients by finite
// differences, and randomized positions refused beside them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>

#include "model_test_support.h"
#include "models/position_groups.h"

using namespace rotor;
using namespace rotor::model_test;
using Catch::Matchers::Contains;

namespace {

const char* const kEncodings[] = {"none",      "rope-interleaved",
                                  "rope-half", "sinusoidal",
                                  "learned",   "t5_bias",
                                  "alibi",     "alibi_directional",
                                  "kerple",    "fire",
                                  "xpos",      "p_rope",
                                  "sandwich",  "cope"};

ModelConfig config_for(const std::string& variant, bool cls) {
  ModelConfig c = tiny_config(variant);
  c.layers = 2;
  if (variant == "alibi_directional") c.position.set("learned_slopes", true);
  if (cls) c.pooling = Pooling::cls;
  return c;
}

// A float64 model of `c` whose every parameter carries signal (none starts at zero).
std::unique_ptr<EncoderClassifier> model_of(const ModelConfig& c) {
  auto model = std::make_unique<EncoderClassifier>(c, DType::F64);
  model->initialize(3);
  spread_zero_parameters(model->parameters(), 4);
  return model;
}

// Logits of `b` at `positions` (a [batch * seq_len] list, or none), float64, no grad.
std::vector<double> logits_of(EncoderClassifier& model, const ToyBatch& b, const std::vector<int32_t>* positions) {
  NoGradGuard no_grad;
  ForwardContext ctx;
  ModelInput in = b.input();
  in.positions = positions;
  return model.logits(in, ctx).value().to_doubles();
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

// Row r of `b` alone.
ToyBatch row_of(const ToyBatch& b, int64_t r) {
  ToyBatch one;
  one.batch = 1;
  one.seq_len = b.seq_len;
  one.tokens.assign(b.tokens.begin() + r * b.seq_len, b.tokens.begin() + (r + 1) * b.seq_len);
  one.lengths = {b.lengths[static_cast<size_t>(r)]};
  one.labels = {b.labels[static_cast<size_t>(r)]};
  return one;
}

// Three coupled-looking rows of n tokens: two operands and their sum digit by digit
// (positions 0..k-1 three times), the same shifted by 4, and the first again.
std::vector<int32_t> coupled_positions(int64_t n) {
  std::vector<int32_t> p;
  const int64_t k = (n + 2) / 3;
  for (int64_t shift : {0, 4, 0})
    for (int64_t t = 0; t < n; ++t) p.push_back(static_cast<int32_t>(t % k + shift));
  return p;
}

}  // namespace

TEST_CASE("explicit positions: rows group by their positions in the order of their first row", "[positions]") {
  const std::vector<int32_t> kFull{3, 3, 3, 3};  // every row's tokens fill its slots
  const std::vector<int32_t> p{0, 1, 2, /**/ 3, 3, 1, /**/ 0, 1, 2, /**/ 3, 3, 1};
  const std::vector<PositionGroup> groups = group_rows_by_positions(p, kFull, 4, 3, false);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].positions.contiguous());  // 0..N-1: the contiguous path
  CHECK(groups[0].rows == std::vector<int64_t>{0, 2});
  CHECK(groups[1].positions.values == std::vector<int64_t>{3, 3, 1});
  CHECK(groups[1].rows == std::vector<int64_t>{1, 3});
  SECTION("a CLS slot sits at 0 and moves every token's position on by one") {
    const std::vector<PositionGroup> cls = group_rows_by_positions(p, kFull, 4, 3, true);
    CHECK(cls[0].positions.contiguous());  // CLS at 0, tokens at 1..3
    CHECK(cls[1].positions.values == std::vector<int64_t>{0, 4, 4, 2});
    CHECK(group_rows_by_positions({0, 0, 1}, {3}, 1, 3, true)[0].positions.values == std::vector<int64_t>{0, 1, 1, 2});
  }
  SECTION("sizes and signs are checked") {
    CHECK_THROWS_AS(group_rows_by_positions(p, kFull, 4, 4, false), ShapeError);
    CHECK_THROWS_AS(group_rows_by_positions(p, {3, 3}, 4, 3, false), ShapeError);
    CHECK_THROWS_WITH(group_rows_by_positions({0, -1}, {2}, 1, 2, false), Contains("position -1"));
  }
  SECTION("a row whose tokens sit at 0..n-1 is contiguous whatever its padding holds") {
    const std::vector<PositionGroup> padded =
        group_rows_by_positions({0, 1, 0, /**/ 0, 1, 2, /**/ 1, 0, 0}, {2, 3, 2}, 3, 3, false);
    REQUIRE(padded.size() == 2);
    CHECK(padded[0].positions.contiguous());
    CHECK(padded[0].rows == std::vector<int64_t>{0, 1});
    CHECK(padded[1].positions.values == std::vector<int64_t>{1, 0, 0});  // other rows keep the data's padding
  }
  CHECK(Positions{{3, 3, 1}}.end(3) == 4);
  CHECK(Positions{{3, 3, 1}}.span(3) == 3);
  CHECK(Positions().end(5) == 5);
}

TEST_CASE("explicit positions: 0..N-1 in every row is the model without them, bit for bit", "[positions][model]") {
  const std::string variant = GENERATE(from_range(std::begin(kEncodings), std::end(kEncodings)));
  const bool cls = GENERATE(false, true);
  CAPTURE(variant, cls);
  const std::unique_ptr<EncoderClassifier> owned = model_of(config_for(variant, cls));
  EncoderClassifier& model = *owned;
  const ToyBatch b = make_toy_batch(ToyTask::order, 4, 15, 12, 5, 0, 3);
  std::vector<int32_t> p;
  for (int64_t r = 0; r < b.batch; ++r)
    for (int32_t t = 0; t < 15; ++t) p.push_back(t);
  CHECK(logits_of(model, b, &p) == logits_of(model, b, nullptr));
}

TEST_CASE("explicit positions: a batch of rows at different positions is each row run alone at its own",
          "[positions][model]") {
  const std::string variant = GENERATE(from_range(std::begin(kEncodings), std::end(kEncodings)));
  const bool cls = GENERATE(false, true);
  CAPTURE(variant, cls);
  const std::unique_ptr<EncoderClassifier> owned = model_of(config_for(variant, cls));
  EncoderClassifier& model = *owned;
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 12, 12, 5, 0, 3);
  const std::vector<int32_t> p = coupled_positions(b.seq_len);
  const std::vector<double> batched = logits_of(model, b, &p);
  for (int64_t r = 0; r < b.batch; ++r) {
    CAPTURE(r);
    const std::vector<int32_t> row(p.begin() + r * b.seq_len, p.begin() + (r + 1) * b.seq_len);
    const std::vector<double> alone = logits_of(model, row_of(b, r), &row);
    const std::vector<double> mine(batched.begin() + 2 * r, batched.begin() + 2 * r + 2);
    CHECK(max_difference(mine, alone) < 1e-12);
  }
  // Positions reach the model: every encoding but none and CoPE (which counts its own) tells them from 0..N-1.
  const std::vector<double> plain = logits_of(model, b, nullptr);
  if (variant == "none" || variant == "cope")
    CHECK(max_difference(batched, plain) == 0.0);
  else
    CHECK(max_difference(batched, plain) > 1e-6);
}

TEST_CASE("explicit positions: two tokens that share a position can trade places", "[positions][model]") {
  // CoPE counts positions from the gates in slot order, so it is left out; every other encoding
  // sees a token only through its position, and mean pooling does not see the slot order.
  const std::string variant =
      GENERATE(values<std::string>({"rope-interleaved", "rope-half", "sinusoidal", "learned", "t5_bias", "alibi",
                                    "alibi_directional", "kerple", "fire", "xpos", "p_rope", "sandwich"}));
  CAPTURE(variant);
  const std::unique_ptr<EncoderClassifier> owned = model_of(config_for(variant, false));
  EncoderClassifier& model = *owned;
  ToyBatch b{{3, 4, 5, 6, 7, 8, 9, 10}, {8}, {0}, 1, 8};
  const std::vector<int32_t> p{5, 1, 3, 3, 0, 2, 2, 4};  // descending and repeated
  const std::vector<double> before = logits_of(model, b, &p);
  std::swap(b.tokens[2], b.tokens[3]);
  CHECK(max_difference(logits_of(model, b, &p), before) < 1e-12);
  std::swap(b.tokens[1], b.tokens[2]);  // positions 1 and 3: a different input (a small model: ~1e-7 apart)
  CHECK(max_difference(logits_of(model, b, &p), before) > 1e-9);
}

TEST_CASE("explicit positions: repeated and descending positions alike on the fused and composed kernels",
          "[positions][model]") {
  const std::string variant = GENERATE(values<std::string>(
      {"rope-interleaved", "t5_bias", "alibi", "alibi_directional", "kerple", "fire", "xpos", "sandwich"}));
  const bool causal = GENERATE(false, true);
  CAPTURE(variant, causal);
  ModelConfig fused = config_for(variant, false), composed = fused;
  fused.attention_kernel = AttentionKernel::fused;
  composed.attention_kernel = AttentionKernel::composed;
  EncoderClassifier a(fused, DType::F64), c(composed, DType::F64);
  a.initialize(3);
  c.initialize(3);
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 12, 12, 5, 0, 3);
  const std::vector<int32_t> p = coupled_positions(b.seq_len);
  auto run = [&](EncoderClassifier& model) {
    NoGradGuard no_grad;
    ForwardContext ctx;
    ctx.causal = causal;
    ModelInput in = b.input();
    in.positions = &p;
    return model.logits(in, ctx).value().to_doubles();
  };
  CHECK(max_difference(run(a), run(c)) < 1e-12);
}

TEST_CASE("explicit positions: gradients through rows at different positions match finite differences",
          "[positions][model][gradient]") {
  const std::string variant = GENERATE(values<std::string>({"rope-interleaved", "learned", "t5_bias", "fire"}));
  CAPTURE(variant);
  ModelConfig c = with_dropout_on(config_for(variant, true), AttentionKernel::fused);
  const std::unique_ptr<EncoderClassifier> owned = model_of(c);
  EncoderClassifier& model = *owned;
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 9, 12, 5, 0, 3);
  const std::vector<int32_t> p = coupled_positions(b.seq_len);
  auto loss = [&] {
    ForwardContext ctx{true, 5, 3};
    ModelInput in = b.input();
    in.positions = &p;
    return model.loss(model.logits(in, ctx), b.labels);
  };
  const auto entries = finite_difference_gradients(
      model.parameters(), loss, [](const std::string&) { return true; }, 6);
  REQUIRE(entries.size() > 20);
  CHECK(worst_gradient_error(entries) < 1e-6);
}

TEST_CASE("explicit positions: randomized positions beside them are refused, naming the key", "[positions][model]") {
  ModelConfig c = config_for("rope-interleaved", false);
  randomize_positions(c, 64);
  EncoderClassifier model(c, DType::F64);
  model.initialize(3);
  const ToyBatch b = make_toy_batch(ToyTask::order, 2, 6, 12, 5, 0, 3);
  std::vector<int32_t> p(12, 1);
  ForwardContext training{true, 5, 3};
  ModelInput in = b.input();
  in.positions = &p;
  CHECK_THROWS_WITH(model.logits(in, training), Contains("model.position.randomized"));
}

// Sandwich (models/sandwich_encoding.cpp): its [H, 2N-1] table against the
// formula, a function of m - n alone to positions of 1e5 (the table and the
// model with every position shifted), symmetric, 0 at m = n and negative
// elsewhere, head h scaled by H / (8h); finite-difference gradients through both
// attention kernels; the config rule. The PyTorch golden files sandwich and
// sandwich_causal (test_golden.cpp) check the whole model.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>

#include "model_test_support.h"
#include "models/position_encoding.h"

using namespace rotor;
using namespace rotor::model_test;
using Catch::Matchers::Contains;

namespace {

ModelConfig sandwich_config(int64_t heads, int64_t dims = 0) {
  ModelConfig c = tiny_config("sandwich");
  c.heads = heads;
  c.d_model = 8 * heads;
  c.position.set("sandwich_dims", dims);
  return c;
}

std::vector<double> table(const ModelConfig& c, int64_t length) {
  ParameterStore store(DType::F64);
  const std::unique_ptr<PositionEncoding> e = make_position_encoding(store, c);
  store.allocate(1);
  return e->relative_bias(store, 0, length, false).value().to_doubles();
}

double sandwich_at(const std::vector<double>& t, int64_t length, int64_t h, int64_t offset) {
  return t[static_cast<size_t>(h * (2 * length - 1) + offset + length - 1)];
}

std::vector<double> sandwich_logits_at(const ModelConfig& c, const ToyBatch& b, const Positions& p) {
  EncoderClassifier model(c, DType::F64);
  model.initialize(3);
  NoGradGuard no_grad;
  ForwardContext ctx;
  return model.logits(b.input(), ctx, p).value().to_doubles();
}

}  // namespace

TEST_CASE("sandwich: (sum_i cos((m - n) / 10000^(2i/d')) - d'/2) H / (8h) per head", "[sandwich]") {
  const ModelConfig c = sandwich_config(4, 6);  // d' = 6: i = 1, 2, 3
  const std::vector<double> t = table(c, 9);
  for (int64_t h = 0; h < 4; ++h)
    for (int64_t offset = -8; offset <= 8; ++offset) {
      const double m = std::abs(static_cast<double>(offset));
      const double product =
          std::cos(m / std::pow(1e4, 2.0 / 6)) + std::cos(m / std::pow(1e4, 4.0 / 6)) + std::cos(m / 1e4) - 3.0;
      CHECK(sandwich_at(t, 9, h, offset) == Approx(product * 4.0 / (8.0 * (h + 1))).margin(1e-15));
    }
  // hand value: offset 1, d' = 2 (one pair, w = 1e-4), one head: (cos(1e-4) - 1) / 8
  CHECK(sandwich_at(table(sandwich_config(1, 2), 3), 3, 0, 1) == Approx((std::cos(1e-4) - 1) / 8).epsilon(1e-12));
  // sandwich_dims 0 takes d_model (16 for two heads)
  CHECK(table(sandwich_config(2, 0), 5) == table(sandwich_config(2, 16), 5));
}

TEST_CASE("sandwich: of m - n only, symmetric, 0 at m = n, negative and bounded elsewhere, to 1e5", "[sandwich]") {
  const int64_t far = 100001, heads = 3, dims = 24;
  const ModelConfig c = sandwich_config(heads, dims);
  const std::vector<double> whole = table(c, far), near = table(c, 40);
  int64_t differ = 0;
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t d = -39; d <= 39; ++d) differ += sandwich_at(near, 40, h, d) != sandwich_at(whole, far, h, d);
    CHECK(sandwich_at(whole, far, h, 0) == 0.0);
    const double floor = -static_cast<double>(dims) * heads / (8.0 * (h + 1));
    for (int64_t d = 1; d < far; d += 37) {
      CHECK(sandwich_at(whole, far, h, d) == sandwich_at(whole, far, h, -d));
      CHECK(sandwich_at(whole, far, h, d) < 0.0);
      CHECK(sandwich_at(whole, far, h, d) >= floor);
    }
    CHECK(sandwich_at(whole, far, h, 100000) == Approx(sandwich_at(whole, far, 0, 100000) / (h + 1)).epsilon(1e-12));
  }
  CHECK(differ == 0);
}

TEST_CASE("sandwich: the model sees p_i - p_j only, with every position shifted by up to 1e5",
          "[sandwich][positions]") {
  const int64_t shift = GENERATE(1, 12345, 100000);
  ModelConfig c = sandwich_config(2);
  c.layers = 2;
  const ToyBatch b = make_toy_batch(ToyTask::order, 4, 20, c.vocab_size, 6, 0, 3);
  Positions p = random_positions(RandomKey{4, 5, 6}, 20, 200);
  const std::vector<double> base = sandwich_logits_at(c, b, p);
  for (int64_t& x : p.values) x += shift;
  const std::vector<double> moved = sandwich_logits_at(c, b, p);
  for (size_t i = 0; i < base.size(); ++i) CHECK(moved[i] == Approx(base[i]).margin(1e-11));
}

TEST_CASE("sandwich: finite-difference gradients through both attention kernels", "[sandwich][gradcheck]") {
  const AttentionKernel kernel = GENERATE(AttentionKernel::fused, AttentionKernel::composed);
  const bool causal = GENERATE(false, true);
  CAPTURE(kernel == AttentionKernel::fused ? "fused" : "composed", causal);
  const ModelConfig c = with_dropout_on(sandwich_config(2), kernel);
  EncoderClassifier model(c, DType::F64);
  model.initialize(8);
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 17, 12, 9, 1, 2);
  const auto entries = finite_difference_gradients(
      model, b, [](const std::string& name) { return name.find(".attn.") != std::string::npos; }, 8, 1e-6, causal);
  CHECK(entries.size() > 40);
  CHECK(worst_gradient_error(entries) < 1e-7);
}

TEST_CASE("sandwich: the fused kernel gives the composed reference's logits", "[sandwich]") {
  ModelConfig fused = sandwich_config(2), composed = sandwich_config(2);
  composed.attention_kernel = AttentionKernel::composed;
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 33, 12, 2, 0, 5);
  const std::vector<double> a = sandwich_logits_at(fused, b, Positions()),
                            r = sandwich_logits_at(composed, b, Positions());
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i] == Approx(r[i]).margin(1e-12));
}

TEST_CASE("sandwich: an odd sandwich_dims is rejected, naming the key", "[sandwich][config]") {
  CHECK_THROWS_WITH(sandwich_config(2, 7).validate(), Contains("model.position.sandwich_dims") && Contains("even"));
  CHECK_NOTHROW(sandwich_config(2, 0).validate());
  CHECK(position_encoding("sandwich").reversal_symmetric);
  CHECK(position_encoding("sandwich").needs_logits);
}

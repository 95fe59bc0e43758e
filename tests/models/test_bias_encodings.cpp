// KERPLE (log) and directional ALiBi: finite-difference gradients of their
// parameters through both attention paths, their tables at positions up to
// 1e5, their starting values and the projection that keeps them in range.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "model_test_support.h"
#include "models/alibi.h"
#include "models/attention.h"
#include "models/position_encoding.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

constexpr int64_t kFar = 100001;  // positions 0 .. 1e5

ModelConfig bias_config(const std::string& type, bool learned_slopes = false, int64_t heads = 2) {
  ModelConfig c = tiny_config(type);
  c.heads = heads;
  c.d_model = 8 * heads;
  if (learned_slopes) c.position.set("learned_slopes", true);
  return c;
}

// An encoding with its parameters allocated and initialised from `seed`.
struct Built {
  ParameterStore store;
  std::unique_ptr<PositionEncoding> encoding;
  Built(const ModelConfig& c, DType dtype, uint64_t seed = 4) : store(dtype) {
    encoding = make_position_encoding(store, c);
    store.allocate(seed);
    encoding->initialize(store, seed);
  }
  std::vector<double> table(int64_t length) const {
    return encoding->relative_bias(store, 0, length, false).value().to_doubles();
  }
  std::vector<double> values(const std::string& name) const { return store.value(store.id(name)).to_doubles(); }
  void set(const std::string& name, const std::vector<double>& v) {
    store.value(store.id(name)).copy_from(Tensor::from_doubles({static_cast<int64_t>(v.size())}, DType::F64, v));
  }
};

// table [H, 2N-1]: the value at offset d = i - j for head h.
double at(const std::vector<double>& table, int64_t length, int64_t h, int64_t d) {
  return table[static_cast<size_t>(h * (2 * length - 1) + d + length - 1)];
}

// The table at length `length` is the centre of the one at kFar (a bias of i - j alone), all finite.
void check_offset_only(const std::vector<double>& far, const std::vector<double>& near, int64_t heads, int64_t length) {
  CHECK(std::all_of(far.begin(), far.end(), [](double x) { return std::isfinite(x); }));
  int64_t differ = 0;
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t d = -(length - 1); d < length; ++d) differ += at(near, length, h, d) != at(far, kFar, h, d);
  CHECK(differ == 0);
}

}  // namespace

TEST_CASE("bias encodings: finite-difference gradients of their parameters through both attention paths",
          "[kerple][alibi_directional][gradcheck]") {
  const std::string type = GENERATE("kerple", "alibi_directional");
  const AttentionKernel kernel = GENERATE(AttentionKernel::fused, AttentionKernel::composed);
  CAPTURE(type, kernel == AttentionKernel::fused ? "fused" : "composed");
  const ModelConfig c = with_dropout_on(bias_config(type, type == "alibi_directional"), kernel);
  EncoderClassifier model(c, DType::F64);
  model.initialize(8);
  const ToyBatch b = make_toy_batch(ToyTask::order, 4, 37, 12, 9, 1, /*min_len=*/2);
  const std::vector<GradientEntry> entries =
      finite_difference_gradients(model, b, [](const std::string& name) { return name.rfind("position.", 0) == 0; });
  for (const GradientEntry& g : entries) {
    CAPTURE(g.name, g.index, g.analytic, g.numeric);
    CHECK(std::abs(g.analytic - g.numeric) < 1e-8 + 1e-6 * std::abs(g.numeric));
    CHECK(g.analytic != 0.0);
  }
  CHECK(entries.size() == 4);  // two heads, two parameters
}

TEST_CASE("kerple: -r1 log(1 + r2 |i - j|) per head, finite, of i - j only, symmetric, decreasing to 1e5", "[kerple]") {
  const DType dtype = GENERATE(DType::F64, DType::F32);
  const int64_t H = 4;
  const Built k(bias_config("kerple", false, H), dtype);
  const std::vector<double> r1 = k.values("position.kerple.r1"), r2 = k.values("position.kerple.r2");
  const std::vector<double> far = k.table(kFar);
  REQUIRE(far.size() == static_cast<size_t>(H * (2 * kFar - 1)));
  check_offset_only(far, k.table(300), H, 300);
  // float32 rounds 1 + r2 d, which at r2 = 0.01, d = 1 is 6e-6 of the logarithm
  const double tol = dtype == DType::F64 ? 1e-13 : 2e-5;
  for (int64_t h = 0; h < H; ++h) {
    CHECK(at(far, kFar, h, 0) == 0.0);
    int64_t asymmetric = 0, rising = 0, ties = 0;
    for (int64_t d = 1; d < kFar; ++d) {
      const double v = at(far, kFar, h, d), nearer = at(far, kFar, h, d - 1);
      asymmetric += at(far, kFar, h, -d) != v;
      rising += v > nearer;
      ties += v == nearer;
    }
    CHECK(asymmetric == 0);
    CHECK(rising == 0);
    if (dtype == DType::F64) CHECK(ties == 0);  // float32 may tie far neighbours
    for (int64_t d : {1, 7, 100, 4097, 99999, 100000})
      CHECK(at(far, kFar, h, d) == Approx(-r1[h] * std::log1p(r2[h] * static_cast<double>(d))).epsilon(tol));
  }
  // expanded to [H, N, N]: element (i, j) is the offset i - j's value
  const std::vector<double> near = k.table(9);
  const std::vector<double> full =
      expand_relative_bias(k.encoding->relative_bias(k.store, 0, 9, false), 9).value().to_doubles();
  for (int64_t h = 0; h < H; ++h)
    for (int64_t i = 0; i < 9; ++i)
      for (int64_t j = 0; j < 9; ++j) CHECK(full[(h * 9 + i) * 9 + j] == at(near, 9, h, i - j));
}

TEST_CASE("kerple: r1 ~ U(0, 2), r2 ~ U(0, 1) from the seed, one pair per head shared by all layers, kept >= 0.01",
          "[kerple]") {
  ModelConfig c = bias_config("kerple", false, 8);
  c.layers = 3;
  EncoderClassifier model(c, DType::F64);
  model.initialize(11);
  ParameterStore& p = model.parameters();
  CHECK(p.infos()[p.id("position.kerple.r1")].shape == Shape{8});
  CHECK_FALSE(p.infos()[p.id("position.kerple.r1")].weight_decay);
  std::vector<double> r1 = p.value(p.id("position.kerple.r1")).to_doubles();
  const std::vector<double> r2 = p.value(p.id("position.kerple.r2")).to_doubles();
  for (double x : r1) CHECK((x >= 0.01 && x < 2.0));
  for (double x : r2) CHECK((x >= 0.01 && x < 1.0));
  CHECK(r1 != r2);
  EncoderClassifier again(c, DType::F64), other(c, DType::F64);
  again.initialize(11);
  other.initialize(12);
  CHECK(again.parameters().value(again.parameters().id("position.kerple.r1")).to_doubles() == r1);
  CHECK(other.parameters().value(other.parameters().id("position.kerple.r1")).to_doubles() != r1);
  // the projection the trainer applies after every step
  r1[0] = -0.5;
  r1[1] = 0.004;
  p.value(p.id("position.kerple.r1")).copy_from(Tensor::from_doubles({8}, DType::F64, r1));
  model.constrain_parameters();
  const std::vector<double> projected = p.value(p.id("position.kerple.r1")).to_doubles();
  CHECK(projected[0] == 0.01);
  CHECK(projected[1] == 0.01);
  CHECK(std::equal(projected.begin() + 2, projected.end(), r1.begin() + 2));
}

TEST_CASE("alibi_directional: fixed slopes split ALiBi's 2H schedule, keys before take the H-head schedule",
          "[alibi_directional]") {
  const Built fixed(bias_config("alibi_directional", false, 8), DType::F64);
  CHECK(fixed.store.infos().empty());  // fixed slopes: no parameters
  const std::vector<double> t = fixed.table(20), m = alibi_slopes(8);
  for (int64_t h = 0; h < 8; ++h)
    for (int64_t d = 1; d < 20; ++d) {
      CHECK(at(t, 20, h, d) == Approx(-m[h] * d).epsilon(1e-14));                        // key before
      CHECK(at(t, 20, h, -d) == Approx(-std::pow(2.0, -(h + 0.5)) * d).epsilon(1e-14));  // key after
    }
  // learned slopes start from the same split, so the bias is the same
  const Built learned(bias_config("alibi_directional", true, 8), DType::F64);
  CHECK(learned.table(20) == t);
  CHECK_FALSE(learned.store.infos()[0].weight_decay);
}

TEST_CASE("alibi_directional: finite and of i - j only to 1e5, equal slopes before and after are symmetric alibi",
          "[alibi_directional]") {
  const DType dtype = GENERATE(DType::F64, DType::F32);
  const int64_t H = GENERATE(8, 6);
  CAPTURE(H);
  const Built fixed(bias_config("alibi_directional", false, H), dtype);
  const std::vector<double> far = fixed.table(kFar);
  check_offset_only(far, fixed.table(257), H, 257);
  for (int64_t h = 0; h < H; ++h) {
    CHECK(at(far, kFar, h, 100000) < at(far, kFar, h, 99999));
    CHECK(at(far, kFar, h, -100000) < at(far, kFar, h, -99999));
    CHECK(at(far, kFar, h, -100000) != at(far, kFar, h, 100000));  // left and right differ
  }
  Built learned(bias_config("alibi_directional", true, H), dtype);
  learned.set("position.alibi_directional.slopes_before", alibi_slopes(H));
  learned.set("position.alibi_directional.slopes_after", alibi_slopes(H));
  const std::vector<double> symmetric = alibi_bias(H, kFar, dtype).to_doubles();
  const std::vector<double> equal = learned.table(kFar);
  REQUIRE(equal.size() == symmetric.size());
  // exact where the slope is a power of two (H = 8), to float32 rounding of the slope otherwise
  const double tol = dtype == DType::F64 || H == 8 ? 0.0 : 1e-7;
  double worst = 0;
  for (size_t i = 0; i < equal.size(); ++i)
    worst = std::max(worst, std::abs(equal[i] - symmetric[i]) / std::max(1.0, std::abs(symmetric[i])));
  CHECK(worst <= tol);
}

TEST_CASE("alibi_directional: learned slopes are kept >= 0 after a step", "[alibi_directional]") {
  EncoderClassifier model(bias_config("alibi_directional", true, 4), DType::F32);
  model.initialize(2);
  ParameterStore& p = model.parameters();
  const ParameterId after = p.id("position.alibi_directional.slopes_after");
  p.value(after).copy_from(Tensor::from_doubles({4}, DType::F64, {-0.25, 0.5, -1e-9, 0.125}));
  model.constrain_parameters();
  CHECK(p.value(after).to_doubles() == std::vector<double>{0.0, 0.5, 0.0, 0.125});
}

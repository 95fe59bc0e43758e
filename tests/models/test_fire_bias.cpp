// FIRE (models/fire_bias.cpp): the bias against its formula written out here,
// its properties at positions up to 1e5, and finite-difference gradients of
// its parameters (MLP weights, c, the threshold multiplier) through the whole
// model on both attention paths.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "tests/models/model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

// A FIRE encoding in float64 with its parameters drawn from `seed`.
struct FireFixture {
  explicit FireFixture(int64_t heads = 2, int64_t layers = 1) : config(tiny_config("fire")), store(DType::F64) {
    config.heads = heads;
    config.layers = layers;
    encoding = make_position_encoding(store, config);
    store.allocate(5);
  }
  void set(const std::string& name, double value) { store.value(store.id(name)).fill(value); }
  std::vector<double> tile(const PairTile& t) const {
    std::vector<double> out(static_cast<size_t>(t.rows * t.cols));
    encoding->pair_bias(store, 0, Positions())->fill(t, out.data(), t.cols);
    return out;
  }
  std::vector<double> values(const std::string& name) const { return store.value(store.id(name)).to_doubles(); }

  ModelConfig config;
  ParameterStore store;
  std::unique_ptr<PositionEncoding> encoding;
};

// The encoder adaptation written out for one (head, i, j): u = sign(i - j)
// log(|c| |i - j| + 1) / (log(|c| max(L, i, j) + 1) + 1e-6), L = |s| 512,
// then b = fc2(relu(fc1(u)))[head].
double fire_formula(const FireFixture& f, int64_t head, int64_t i, int64_t j) {
  const std::string p = "layers.0.attn.fire.";
  const double c = std::abs(f.values(p + "c")[0]), L = std::abs(f.values(p + "threshold_scale")[0]) * 512;
  const double d = static_cast<double>(i - j), later = static_cast<double>(std::max(i, j));
  const double u = (d > 0   ? 1
                    : d < 0 ? -1
                            : 0) *
                   std::log(c * std::abs(d) + 1) / (std::log(c * std::max(L, later) + 1) + 1e-6);
  const auto w1 = f.values(p + "mlp.fc1.weight"), b1 = f.values(p + "mlp.fc1.bias");
  const auto w2 = f.values(p + "mlp.fc2.weight"), b2 = f.values(p + "mlp.fc2.bias");
  double b = b2[static_cast<size_t>(head)];
  for (size_t k = 0; k < w1.size(); ++k) b += w2[head * w1.size() + k] * std::max(0.0, w1[k] * u + b1[k]);
  return b;
}

}  // namespace

TEST_CASE("FIRE: the fused tiles equal the encoder formula, before and after the threshold", "[fire][model]") {
  FireFixture f;
  f.set("layers.0.attn.fire.threshold_scale", 20.0 / 512);  // L = 20: positions on both sides
  for (const PairTile& t : {PairTile{0, 0, 7, 0, 9}, PairTile{1, 13, 30, 2, 40}, PairTile{1, 60, 5, 64, 64}})
    for (int64_t r = 0; r < t.rows; ++r)
      for (int64_t c = 0; c < t.cols; ++c) {
        INFO("head " << t.head << " i " << t.i0 + r << " j " << t.j0 + c);
        CHECK(f.tile(t)[r * t.cols + c] == Approx(fire_formula(f, t.head, t.i0 + r, t.j0 + c)).epsilon(1e-13));
      }
}

TEST_CASE("FIRE: the bias is finite at positions up to 1e5", "[fire][model][property]") {
  FireFixture f;
  for (int64_t i0 : {int64_t{0}, int64_t{4000}, int64_t{99936}})
    for (int64_t j0 : {int64_t{0}, int64_t{50000}, int64_t{99936}})
      for (int64_t head : {0, 1}) {
        const std::vector<double> b = f.tile({head, i0, 64, j0, 64});
        CHECK(std::all_of(b.begin(), b.end(), [](double x) { return std::isfinite(x); }));
      }
}

TEST_CASE("FIRE: while max(i, j) <= L the bias depends only on i - j, up to 1e5", "[fire][model][property]") {
  FireFixture f;
  f.set("layers.0.attn.fire.threshold_scale", 1e5 / 512);  // L = 1e5
  for (int64_t shift : {int64_t{1}, int64_t{777}, int64_t{99936 - 64}}) {
    INFO("shift " << shift);
    CHECK(f.tile({1, 0, 64, 0, 64}) == f.tile({1, shift, 64, shift, 64}));
    CHECK(f.tile({0, 0, 64, 64, 64}) == f.tile({0, shift, 64, 64 + shift, 64}));
  }
  // Past L the distances are interpolated: the same offset no longer gives the same bias.
  f.set("layers.0.attn.fire.threshold_scale", 1.0);  // L = 512
  CHECK(f.tile({1, 0, 64, 0, 64}) != f.tile({1, 99936 - 64, 64, 99936 - 64, 64}));
}

namespace {

// max over FIRE parameter elements of |analytic - numeric| / max(1, |numeric|).
double fire_gradient_error(AttentionKernel kernel) {
  ModelConfig c = tiny_config("fire");
  c.layers = 2;
  c.attention_dropout = 0.2;
  c.attention_kernel = kernel;
  EncoderClassifier model(c, DType::F64);
  model.initialize(9);
  ParameterStore& params = model.parameters();
  for (const char* layer : {"layers.0", "layers.1"})  // L = 5.5: positions on both sides of the threshold
    params.value(params.id(std::string(layer) + ".attn.fire.threshold_scale")).fill(5.5 / 512);
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 11, 12, 4, 0, 3);
  const std::vector<GradientEntry> entries = finite_difference_gradients(
      model, b, [](const std::string& name) { return name.find(".fire.") != std::string::npos; });
  CHECK(entries.size() == 2 * (32 + 32 + 2 * 32 + 2 + 1 + 1));
  return worst_gradient_error(entries);
}

}  // namespace

TEST_CASE("FIRE: finite-difference gradients of its parameters through the fused attention", "[fire][model]") {
  CHECK(fire_gradient_error(AttentionKernel::fused) < 1e-6);
}

TEST_CASE("FIRE: finite-difference gradients of its parameters through the composed attention", "[fire][model]") {
  CHECK(fire_gradient_error(AttentionKernel::composed) < 1e-6);
}

// analyze bias's curves: for hand-set parameters the bias against distance is
// the encoding's formula (ALiBi -m|d|, KERPLE -r1 log(1 + r2 |d|), T5's table at
// the bucket of d), the bias-only attention is its softmax, shared tables are
// reported once, FIRE per layer and per query, and an encoding without a bias
// is refused by name.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "trainers/diagnostics/bias_profile.h"

using namespace rotor;

namespace {

constexpr int64_t kLength = 8, kDistance = 20;

ModelConfig config(const std::string& type, int64_t heads = 4) {
  ModelConfig c;
  c.heads = heads;
  c.d_model = 8 * heads;
  c.layers = 2;
  c.position.type = type;
  return c;
}

struct Built {
  ParameterStore store{DType::F64};
  std::unique_ptr<PositionEncoding> encoding;
  explicit Built(const ModelConfig& c) {
    encoding = make_position_encoding(store, c);
    store.allocate(3);
    encoding->initialize(store, 3);
  }
  void set(const std::string& name, const std::vector<double>& v) {
    const Tensor& old = store.value(store.id(name));
    store.value(store.id(name)).copy_from(Tensor::from_doubles(old.shape(), DType::F64, v));
  }
  BiasProfile profile(bool causal = false, const std::string& type = "") const {
    return bias_profile(*encoding, store, type, 2, kLength, kDistance, causal);
  }
};

// The bias of `head` at key - query = d in one row; NAN when the row has no such key.
double bias_at(const BiasRow& row, int64_t head, int64_t d) {
  const int64_t k = row.query_position + d - row.first_key;
  return k < 0 || k >= int64_t(row.bias[head].size()) ? NAN : row.bias[head][k];
}

// Every key of every row has bias `formula(head, d)`, and the attention is its softmax.
template <class Formula>
void check_rows(const LayerBiasRows& layer, Formula formula) {
  for (const BiasRow& row : layer.rows)
    for (size_t h = 0; h < row.bias.size(); ++h) {
      double total = 0;
      for (const double b : row.bias[h]) total += std::exp(b);
      for (size_t k = 0; k < row.bias[h].size(); ++k) {
        const int64_t d = row.first_key + int64_t(k) - row.query_position;
        CHECK(row.bias[h][k] == Approx(formula(int64_t(h), d)).margin(1e-12));
        CHECK(row.attention[h][k] == Approx(std::exp(row.bias[h][k]) / total).margin(1e-12));
      }
      CHECK(std::accumulate(row.attention[h].begin(), row.attention[h].end(), 0.0) == Approx(1.0));
    }
}

}  // namespace

TEST_CASE("analyze bias: ALiBi's curve is -m_h |d|, one table for every layer", "[diagnostics][bias]") {
  const Built alibi(config("alibi"));
  const BiasProfile p = alibi.profile();
  REQUIRE(p.layers.size() == 1);
  CHECK(p.layers[0].layer == -1);
  REQUIRE(p.layers[0].rows.size() == 2);
  const BiasRow& end = p.layers[0].rows[0];
  const BiasRow& far = p.layers[0].rows[1];
  CHECK(end.query_position == kLength - 1);
  CHECK(end.first_key == 0);
  CHECK(end.bias[0].size() == size_t(kLength + kDistance));  // keys 0 .. L - 1 + D
  CHECK(far.query_position == kDistance);
  CHECK(far.bias[0].size() == size_t(2 * kDistance + 1));  // distances -D .. D
  check_rows(p.layers[0], [](int64_t h, int64_t d) { return -std::pow(2.0, -2.0 * (h + 1)) * std::abs(double(d)); });

  const BiasProfile causal = alibi.profile(true);
  CHECK(causal.layers[0].rows[1].bias[0].size() == size_t(kDistance + 1));  // keys at or before the query
  check_rows(causal.layers[0], [](int64_t h, int64_t d) { return -std::pow(2.0, -2.0 * (h + 1)) * -double(d); });
}

TEST_CASE("analyze bias: KERPLE's curve is -r1 log(1 + r2 |d|)", "[diagnostics][bias]") {
  Built kerple(config("kerple", 2));
  kerple.set("position.kerple.r1", {0.5, 1.5});
  kerple.set("position.kerple.r2", {0.2, 0.7});
  const BiasProfile p = kerple.profile();
  REQUIRE(p.layers.size() == 1);
  const double r1[] = {0.5, 1.5}, r2[] = {0.2, 0.7};
  check_rows(p.layers[0], [&](int64_t h, int64_t d) { return -r1[h] * std::log1p(r2[h] * std::abs(double(d))); });
}

TEST_CASE("analyze bias: T5's curve looks up its table by bucket, per layer when per_layer", "[diagnostics][bias]") {
  ModelConfig c = config("t5_bias", 2);
  c.position.set("per_layer", true);
  Built t5(c);
  std::vector<double> table(32 * 2);
  for (int64_t layer = 0; layer < 2; ++layer) {
    for (int64_t b = 0; b < 32; ++b)
      for (int64_t h = 0; h < 2; ++h) table[b * 2 + h] = 1000 * layer + 100 * h + b;
    t5.set("layers." + std::to_string(layer) + ".attn.t5_bias.weight", table);
  }
  const BiasProfile p = t5.profile();
  REQUIRE(p.layers.size() == 2);
  const BiasRow& far1 = p.layers[1].rows[1];
  // Bidirectional buckets (32, max distance 128): keys before the query 0..15 (exact below 8), after 16..31.
  CHECK(bias_at(far1, 1, 0) == 1100);
  CHECK(bias_at(far1, 1, -3) == 1103);
  CHECK(bias_at(far1, 1, 3) == 1119);
  CHECK(bias_at(far1, 0, 7) == 1023);
  CHECK(bias_at(p.layers[0].rows[1], 0, -3) == 3);
  // Causal (decoder) buckets: all 32 for keys before the query, exact below 16.
  const BiasProfile decoder = t5.profile(true);  // kept: a reference into a temporary would dangle
  const BiasRow& causal = decoder.layers[0].rows[1];
  CHECK(bias_at(causal, 1, -10) == 110);
  CHECK(bias_at(causal, 1, -15) == 115);
  CHECK(std::isnan(bias_at(causal, 1, 1)));
}

TEST_CASE("analyze bias: FIRE per layer, the same curve at both queries below its threshold", "[diagnostics][bias]") {
  ModelConfig c = config("fire", 2);
  c.position.set("initial_threshold", 1000.0);  // L beyond every position: a bias of i - j alone
  const BiasProfile below = Built(c).profile();
  REQUIRE(below.layers.size() == 2);  // one MLP per layer
  for (const LayerBiasRows& layer : below.layers)
    for (int64_t d = -(kLength - 1); d <= kDistance; ++d)
      CHECK(bias_at(layer.rows[0], 1, d) == Approx(bias_at(layer.rows[1], 1, d)).margin(1e-12));
  c.position.set("initial_threshold", 1.0);  // L = 1: psi(max(L, i, j)) normalises by the later position
  const BiasProfile beyond = Built(c).profile();
  int differ = 0;
  for (int64_t d = -(kLength - 1); d <= kDistance; ++d)
    differ += std::abs(bias_at(beyond.layers[0].rows[0], 0, d) - bias_at(beyond.layers[0].rows[1], 0, d)) > 1e-9;
  CHECK(differ > 0);
}

TEST_CASE("analyze bias refuses an encoding without a bias, naming it", "[diagnostics][bias]") {
  CHECK_THROWS_WITH(Built(config("rope")).profile(false, "rope"),
                    Catch::Contains("'rope' adds no bias") && Catch::Contains("analyze rope-decay"));
  CHECK_THROWS_WITH(Built(config("sinusoidal")).profile(false, "sinusoidal"),
                    Catch::Contains("'sinusoidal' adds no bias") && !Catch::Contains("rope-decay"));
}

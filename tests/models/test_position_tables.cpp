// The non-rotary position encodings: T5 relative buckets and bias, ALiBi
// slopes and bias, the sinusoidal table.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>

#include "model_test_support.h"
#include "models/alibi.h"
#include "models/attention.h"
#include "models/sinusoidal_encoding.h"
#include "models/t5_relative_bias.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

// A literal re-statement of HF T5Attention._relative_position_bucket with
// bidirectional=True (rel = memory_position - context_position), including
// its float32 log of relative_position.float().
int64_t hf_t5_bucket(int64_t relative_position, int64_t num_buckets, int64_t max_distance) {
  int64_t relative_buckets = 0;
  num_buckets /= 2;
  relative_buckets += (relative_position > 0 ? 1 : 0) * num_buckets;
  relative_position = std::llabs(relative_position);
  const int64_t max_exact = num_buckets / 2;
  const bool is_small = relative_position < max_exact;
  // torch.where evaluates both branches; in C++ the large branch is only
  // computed when taken (log(0) = -inf converted to an integer is undefined).
  if (is_small) return relative_buckets + relative_position;
  int64_t relative_position_if_large =
      max_exact + static_cast<int64_t>(std::log(static_cast<float>(relative_position) / static_cast<float>(max_exact)) /
                                       static_cast<float>(std::log(static_cast<double>(max_distance) / max_exact)) *
                                       static_cast<float>(num_buckets - max_exact));
  relative_position_if_large = std::min(relative_position_if_large, num_buckets - 1);
  return relative_buckets + relative_position_if_large;
}

}  // namespace

TEST_CASE("t5 bucket: equals the HF formula for every relative position in -300..300", "[t5]") {
  for (int64_t rel = -300; rel <= 300; ++rel) {
    INFO("rel " << rel);
    CHECK(t5_bucket(rel, 32, 128) == hf_t5_bucket(rel, 32, 128));
  }
  // other table shapes follow the same formula
  for (int64_t rel = -300; rel <= 300; ++rel) {
    INFO("rel " << rel);
    CHECK(t5_bucket(rel, 16, 64) == hf_t5_bucket(rel, 16, 64));
    CHECK(t5_bucket(rel, 64, 256) == hf_t5_bucket(rel, 64, 256));
  }
}

TEST_CASE("t5 bucket: spot values (32 buckets, max distance 128)", "[t5]") {
  CHECK(t5_bucket(0, 32, 128) == 0);
  CHECK(t5_bucket(1, 32, 128) == 17);  // keys to the right use buckets 16..31
  CHECK(t5_bucket(-1, 32, 128) == 1);
  CHECK(t5_bucket(7, 32, 128) == 23);    // last exact bucket
  CHECK(t5_bucket(-8, 32, 128) == 8);    // first log-spaced bucket
  CHECK(t5_bucket(16, 32, 128) == 26);   // 8 + 8 log(16/8)/log(16) = 10
  CHECK(t5_bucket(-64, 32, 128) == 14);  // 8 + 6
  CHECK(t5_bucket(127, 32, 128) == 31);
  CHECK(t5_bucket(128, 32, 128) == 31);
  CHECK(t5_bucket(-1000, 32, 128) == 15);
  CHECK(t5_bucket(100000, 32, 128) == 31);
  // buckets never decrease with distance on either side, and cover 0..31
  // except 16 (= "right of the query at distance 0", which cannot happen: a
  // known dead bucket of the bidirectional T5 scheme)
  std::vector<int> used(32, 0);
  for (int64_t n = 1; n <= 300; ++n) {
    if (n > 1) CHECK(t5_bucket(n, 32, 128) >= t5_bucket(n - 1, 32, 128));
    CHECK(t5_bucket(-n, 32, 128) >= t5_bucket(-(n - 1), 32, 128));
  }
  for (int64_t rel = -300; rel <= 300; ++rel) used[static_cast<size_t>(t5_bucket(rel, 32, 128))] = 1;
  for (int b = 0; b < 32; ++b) CHECK(used[b] == (b == 16 ? 0 : 1));
}

TEST_CASE("t5 bias: per-offset [H, 2N-1], expanded bias[h, i, j] = table[bucket(j - i), h], gradients reach the table",
          "[t5]") {
  const int64_t buckets = 32, heads = 3, N = 40;
  std::vector<double> table(buckets * heads);
  for (int64_t b = 0; b < buckets; ++b)
    for (int64_t h = 0; h < heads; ++h) table[b * heads + h] = 10.0 * b + h;
  Var t(Tensor::from_doubles({buckets, heads}, DType::F64, table), true);
  const Var per_offset = t5_relative_bias(t, N, buckets, 128, false);
  REQUIRE(per_offset.shape() == Shape{heads, 2 * N - 1});
  const std::vector<double> po = per_offset.value().to_doubles();
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t k = 0; k < 2 * N - 1; ++k)  // k = (i - j) + (N - 1): key - query = N - 1 - k
      CHECK(po[h * (2 * N - 1) + k] == 10.0 * t5_bucket(N - 1 - k, 32, 128) + h);
  const Var out = expand_relative_bias(per_offset, N);
  REQUIRE(out.shape() == Shape{heads, N, N});
  const std::vector<double> v = out.value().to_doubles();
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j < N; ++j) CHECK(v[(h * N + i) * N + j] == 10.0 * t5_bucket(j - i, 32, 128) + h);
  // d sum(bias) / d table[b, h] = number of (i, j) pairs in bucket b
  backward(sum_all(out));
  const std::vector<double> g = t.grad().to_doubles();
  for (int64_t b = 0; b < buckets; ++b) {
    int64_t count = 0;
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j < N; ++j) count += t5_bucket(j - i, 32, 128) == b;
    for (int64_t h = 0; h < heads; ++h) CHECK(g[b * heads + h] == static_cast<double>(count));
  }
  // the prefix property dynamic padding relies on: a shorter length is the centre of a longer table
  const std::vector<double> shorter = t5_relative_bias(t, 5, buckets, 128, false).value().to_doubles();
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t k = 0; k < 9; ++k) CHECK(shorter[h * 9 + k] == po[h * (2 * N - 1) + k + (N - 5)]);
}

TEST_CASE("t5 bias: one shared table by default, one per layer on request", "[t5][model]") {
  ModelConfig c = tiny_config("t5_bias");
  c.layers = 3;
  EncoderClassifier shared(c);
  CHECK(shared.parameters().contains("position.t5_bias.weight"));
  CHECK_FALSE(shared.parameters().contains("layers.0.attn.t5_bias.weight"));
  c.position.set("per_layer", true);
  EncoderClassifier per_layer(c);
  CHECK_FALSE(per_layer.parameters().contains("position.t5_bias.weight"));
  for (int l = 0; l < 3; ++l) {
    const std::string name = "layers." + std::to_string(l) + ".attn.t5_bias.weight";
    REQUIRE(per_layer.parameters().contains(name));
    CHECK(per_layer.parameters().infos()[per_layer.parameters().id(name)].shape == Shape{32, 2});
  }
}

TEST_CASE("alibi slopes: powers of two are 2^(-8h/H)", "[alibi]") {
  CHECK(alibi_slopes(8) ==
        std::vector<double>{1.0 / 2, 1.0 / 4, 1.0 / 8, 1.0 / 16, 1.0 / 32, 1.0 / 64, 1.0 / 128, 1.0 / 256});
  CHECK(alibi_slopes(2) == std::vector<double>{1.0 / 16, 1.0 / 256});
  CHECK(alibi_slopes(1) == std::vector<double>{1.0 / 256});
  const std::vector<double> s16 = alibi_slopes(16);
  REQUIRE(s16.size() == 16);
  for (int h = 1; h <= 16; ++h) CHECK(s16[h - 1] == Approx(std::pow(2.0, -8.0 * h / 16)).epsilon(1e-15));
}

TEST_CASE("alibi slopes: non-powers of two take the closest power, then every other slope of twice that", "[alibi]") {
  // ofirpress/attention_with_linear_biases: get_slopes(closest) + get_slopes(2 closest)[0::2][:n - closest]
  CHECK(alibi_slopes(3) == std::vector<double>{1.0 / 16, 1.0 / 256, 1.0 / 4});
  CHECK(alibi_slopes(6) == std::vector<double>{1.0 / 4, 1.0 / 16, 1.0 / 64, 1.0 / 256, 1.0 / 2, 1.0 / 8});
  const std::vector<double> s12 = alibi_slopes(12);
  REQUIRE(s12.size() == 12);
  for (int h = 1; h <= 8; ++h) CHECK(s12[h - 1] == std::pow(2.0, -h));
  const double extra[] = {-0.5, -1.5, -2.5, -3.5};
  for (int e = 0; e < 4; ++e) CHECK(s12[8 + e] == Approx(std::pow(2.0, extra[e])).epsilon(1e-15));
  CHECK(alibi_slopes(5).size() == 5);
  CHECK(alibi_slopes(5)[4] == 1.0 / 2);
}

TEST_CASE("alibi bias: per offset [H, 2N-1], expanded -m_h |i - j|, symmetric, in the requested dtype", "[alibi]") {
  const DType dtype = GENERATE(DType::F32, DType::F64);
  const int64_t H = 6, N = 9;
  const Tensor per_offset = alibi_bias(H, N, dtype);
  REQUIRE(per_offset.shape() == Shape{H, 2 * N - 1});
  const Tensor b = expand_relative_bias(Var(per_offset), N).value();
  REQUIRE(b.shape() == Shape{H, N, N});
  CHECK(b.dtype() == dtype);
  const std::vector<double> m = alibi_slopes(H), v = b.to_doubles();
  for (int64_t h = 0; h < H; ++h)
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j < N; ++j) {
        CHECK(v[(h * N + i) * N + j] == Approx(-m[h] * static_cast<double>(std::llabs(i - j))).epsilon(1e-7));
        CHECK(v[(h * N + i) * N + j] == v[(h * N + j) * N + i]);
      }
  CHECK(v[(0 * N + 0) * N + 3] == Approx(-0.75).epsilon(1e-7));  // head 0 slope 1/4, distance 3
}

TEST_CASE("sinusoidal table: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(same), any length", "[sinusoidal]") {
  const int64_t L = 10000, d = 16;
  const Tensor t = sinusoidal_table(L, d, DType::F64);
  REQUIRE(t.shape() == Shape{L, d});
  const std::vector<double> v = t.to_doubles();
  auto pe = [&](int64_t p, int64_t j) { return v[p * d + j]; };
  for (int64_t j = 0; j < d; ++j) CHECK(pe(0, j) == (j % 2 == 0 ? 0.0 : 1.0));
  CHECK(pe(1, 0) == Approx(0.8414709848078965).epsilon(1e-15));  // sin(1)
  CHECK(pe(1, 1) == Approx(0.5403023058681398).epsilon(1e-15));  // cos(1)
  // Python math values
  CHECK(pe(100, 2) == Approx(0.2053781377222452).epsilon(1e-13));
  CHECK(pe(9999, 6) == Approx(0.8933360492411827).epsilon(1e-12));
  CHECK(pe(9999, 15) == Approx(-0.9997925635968826).epsilon(1e-12));
  for (int64_t p : {0, 1, 17, 511, 4097, 9999})
    for (int64_t j = 0; j < d; ++j) {
      const double angle = p * std::pow(10000.0, -static_cast<double>(j / 2 * 2) / d);
      CHECK(pe(p, j) == Approx(j % 2 == 0 ? std::sin(angle) : std::cos(angle)).margin(1e-12));
    }
  // float32 is the float64 table rounded; a prefix of a longer table is the shorter table
  const std::vector<double> f = sinusoidal_table(L, d, DType::F32).to_doubles();
  for (size_t i = 0; i < v.size(); i += 37) CHECK(f[i] == static_cast<double>(static_cast<float>(v[i])));
  const std::vector<double> shorter = sinusoidal_table(50, d, DType::F64).to_doubles();
  CHECK(std::equal(shorter.begin(), shorter.end(), v.begin()));
}

// RoPE's newer frequency schedules (models/rope_scaling.cpp): Llama 3.1's
// llama3, dynamic NTK, LongRoPE and Resonance RoPE against the tables PyTorch computes
// from Hugging Face's formulas and the paper (tools/golden/make_golden.py, the
// aux/ sets of the rope_* golden files; the rope_longrope* files check whole
// models), dynamic NTK equal to plain RoPE bit for bit at or below the training
// length, LongRoPE's switch from short to long factors one position past it, their invariants at positions up to 1e5,
// gradients beyond the training length, and `proportional` as p_rope.
#include <catch2/catch.hpp>

#include <cmath>

#include "golden_file.h"
#include "model_test_support.h"
#include "models/rope_scaling.h"

using namespace rotor;
using namespace rotor::model_test;
using Catch::Matchers::Contains;

namespace {

constexpr double kTwoPi = 6.283185307179586;

std::vector<double> aux(const std::string& variant, const std::string& name) {
  return test::GoldenFile(std::string(ROTOR_TEST_DATA_DIR) + "/golden/" + variant + ".h5").doubles("/aux/" + name);
}

PositionConfig scheduled(const std::string& scaling, double factor, int64_t original, double base = 10000.0) {
  PositionConfig p = rope_position("half");
  p.set("base", base);
  p.set("scaling", option<RopeScaling>(scaling));
  p.set("scaling_factor", factor);
  p.set("original_max_len", original);
  return p;
}

double worst_relative(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]) / std::abs(b[i]));
  return worst;
}

std::vector<double> eval_logits(const ModelConfig& c, const ToyBatch& b, const Positions& positions = Positions()) {
  EncoderClassifier model(c, DType::F64);
  model.initialize(3);
  NoGradGuard no_grad;
  ForwardContext ctx;
  return model.logits(b.input(), ctx, positions).value().to_doubles();
}

// LongRoPE on 8 rotated dims (4 pairs) with scaling factor s and training length L.
PositionConfig longrope(double factor, int64_t original, std::vector<double> short_factors = {1, 1.5, 2, 4},
                        std::vector<double> long_factors = {1, 3, 9, 27}) {
  PositionConfig p = scheduled("longrope", factor, original);
  p.set("short_factors", short_factors);
  p.set("long_factors", long_factors);
  return p;
}

ModelConfig rope_model(const PositionConfig& p) {
  ModelConfig c = tiny_config("rope-half");
  c.layers = 2;
  c.position = p;
  return c;
}

}  // namespace

TEST_CASE("rope scaling llama3: Llama 3.1's frequencies as PyTorch computes them", "[rope][scaling][golden]") {
  PositionConfig p = scheduled("llama3", 8.0, 8192, 500000.0);  // Llama 3.1's own values
  const std::vector<double> f = RotaryEmbedding::inverse_frequencies(128, p);
  CHECK(worst_relative(f, aux("rope_llama3", "llama31_inv_freq")) < 1e-14);
  // the three bands: wavelengths below 8192 / 4 keep theta_i, above 8192 / 1 are divided by 8, a ramp between
  const std::vector<double> plain = RotaryEmbedding::inverse_frequencies(128, rope_position());
  p.set("scaling", RopeScaling::none);
  const std::vector<double> unscaled = RotaryEmbedding::inverse_frequencies(128, p);
  int64_t kept = 0, divided = 0, ramp = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    const double wavelength = kTwoPi / unscaled[i];
    if (wavelength < 2048) kept += f[i] == unscaled[i];
    if (wavelength > 8192) divided += f[i] == unscaled[i] / 8;
    if (wavelength >= 2048 && wavelength <= 8192)
      ramp += f[i] < unscaled[i] && f[i] > unscaled[i] / 8 && (i == 0 || f[i] < f[i - 1]);
  }
  CHECK(kept > 0);
  CHECK(divided > 0);
  CHECK(ramp > 0);
  CHECK(kept + divided + ramp == 64);
  CHECK(RotaryEmbedding::attention_factor(scheduled("llama3", 8.0, 8192)) == 1.0);
  CHECK(plain.size() == 64);
}

TEST_CASE("rope scaling dynamic_ntk: the base grows with the forward's length as PyTorch's",
          "[rope][scaling][golden]") {
  const PositionConfig p = scheduled("dynamic_ntk", 2.0, 8192);
  for (const int64_t n : {100, 8192, 8193, 100000}) {
    INFO(n << " positions");
    CHECK(worst_relative(scaled_inverse_frequencies(64, p, n),
                         aux("rope_dynamic_ntk", "dynamic_inv_freq_" + std::to_string(n))) < 1e-14);
  }
  // a forward of 100000 positions turns by those frequencies, and by plain RoPE's at 8192
  const RotaryEmbedding rope(64, p);
  const std::vector<double> grown = scaled_inverse_frequencies(64, p, 100000);
  const std::vector<double> cos_far = rope.tables(100000, Positions()).cos.to_doubles();
  CHECK(cos_far[99999 * 32 + 31] == std::cos(99999.0 * grown[31]));
  CHECK(grown[31] < rope.frequencies()[31]);
  CHECK(rope.tables(8192, Positions()).cos.to_doubles()[8191 * 32 + 31] == std::cos(8191.0 * rope.frequencies()[31]));
}

TEST_CASE("rope scaling dynamic_ntk: plain RoPE bit for bit at or below the training length", "[rope][scaling]") {
  const PositionConfig dynamic = scheduled("dynamic_ntk", 4.0, 16);
  const std::vector<double> plain_f = RotaryEmbedding::inverse_frequencies(8, rope_position("half"));
  for (const int64_t n : {1, 9, 16}) CHECK(scaled_inverse_frequencies(8, dynamic, n) == plain_f);
  const ModelConfig d = rope_model(dynamic), plain = rope_model(rope_position("half"));
  for (const int64_t n : {9, 16}) {
    const ToyBatch b = make_toy_batch(ToyTask::order, 3, n, d.vocab_size, 4, 0, 3);
    CHECK(eval_logits(d, b) == eval_logits(plain, b));
    // explicit positions reaching 16 at most, too
    const Positions spread = random_positions(RandomKey{7, 8, 9}, n, 16);
    CHECK(eval_logits(d, b, spread) == eval_logits(plain, b, spread));
  }
  // one position further and the base grows
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 17, d.vocab_size, 4, 0, 3);
  CHECK(eval_logits(d, b) != eval_logits(plain, b));
  const Positions reach = random_positions(RandomKey{7, 8, 9}, 9, 40);
  CHECK(eval_logits(d, make_toy_batch(ToyTask::order, 3, 9, d.vocab_size, 4, 0, 3), reach) !=
        eval_logits(plain, make_toy_batch(ToyTask::order, 3, 9, d.vocab_size, 4, 0, 3), reach));
}

TEST_CASE("rope scaling dynamic_ntk: within one forward scores depend on m - n only, to 1e5", "[rope][scaling]") {
  const RotaryEmbedding rope(32, scheduled("dynamic_ntk", 2.0, 512));
  const std::vector<double> q = random_normal(32, 1), k = random_normal(32, 2);
  const Positions p{{0, 3, 50000, 50003, 99997, 100000}};  // one forward reaching 100001
  const RotaryTables t = rope.tables(6, p);
  std::vector<double> qs, ks;
  for (int i = 0; i < 6; ++i) qs.insert(qs.end(), q.begin(), q.end()), ks.insert(ks.end(), k.begin(), k.end());
  const std::vector<double> rq = rotate_rows(qs, 32, t, RotaryLayout::half, DType::F64);
  const std::vector<double> rk = rotate_rows(ks, 32, t, RotaryLayout::half, DType::F64);
  const double near = dot(row(rq, 32, 1), row(rk, 32, 0));
  CHECK(dot(row(rq, 32, 3), row(rk, 32, 2)) == Approx(near).margin(1e-9));
  CHECK(dot(row(rq, 32, 5), row(rk, 32, 4)) == Approx(near).margin(1e-9));
}

TEST_CASE("rope scaling longrope: short factors up to the training length, long ones past it, Phi-3's factor",
          "[rope][scaling]") {
  const PositionConfig p = longrope(4.0, 16);
  const std::vector<double> plain = RotaryEmbedding::inverse_frequencies(8, rope_position("half"));
  const std::vector<double> short_factors{1, 1.5, 2, 4}, long_factors{1, 3, 9, 27};
  for (const int64_t n : {0, 1, 16, 17, 100000})
    for (size_t i = 0; i < 4; ++i)
      CHECK(scaled_inverse_frequencies(8, p, n)[i] == plain[i] / (n > 16 ? long_factors : short_factors)[i]);
  const RotaryEmbedding rope(8, p);
  CHECK(rope.frequencies() == scaled_inverse_frequencies(8, p, 16));  // training: the short factors
  for (size_t i = 0; i < 4; ++i) {
    CHECK(rope.tables(16, Positions()).cos.to_doubles()[15 * 4 + i] == std::cos(15.0 * plain[i] / short_factors[i]));
    CHECK(rope.tables(17, Positions()).cos.to_doubles()[16 * 4 + i] == std::cos(16.0 * plain[i] / long_factors[i]));
  }
  // Phi-3's attention factor sqrt(1 + ln s / ln L) at every length; 1 when s = 1.
  CHECK(RotaryEmbedding::attention_factor(p) == std::sqrt(1 + std::log(4.0) / std::log(16.0)));
  CHECK(RotaryEmbedding::attention_factor(longrope(1.0, 16)) == 1.0);
}

TEST_CASE("rope scaling longrope: unit factors and s = 1 are plain RoPE bit for bit at every length",
          "[rope][scaling]") {
  const ModelConfig unit = rope_model(longrope(1.0, 8, {1, 1, 1, 1}, {1, 1, 1, 1}));
  const ModelConfig plain = rope_model(rope_position("half"));
  for (const int64_t n : {8, 9, 20}) {
    const ToyBatch b = make_toy_batch(ToyTask::order, 3, n, unit.vocab_size, 4, 0, 3);
    CHECK(eval_logits(unit, b) == eval_logits(plain, b));
  }
  // Long factors that differ take effect one position past L = 8, not before.
  const ModelConfig stretched = rope_model(longrope(1.0, 8, {1, 1, 1, 1}, {1, 2, 4, 8}));
  CHECK(eval_logits(stretched, make_toy_batch(ToyTask::order, 3, 8, unit.vocab_size, 4, 0, 3)) ==
        eval_logits(plain, make_toy_batch(ToyTask::order, 3, 8, unit.vocab_size, 4, 0, 3)));
  CHECK(eval_logits(stretched, make_toy_batch(ToyTask::order, 3, 9, unit.vocab_size, 4, 0, 3)) !=
        eval_logits(plain, make_toy_batch(ToyTask::order, 3, 9, unit.vocab_size, 4, 0, 3)));
}

TEST_CASE("rope resonance: every wavelength a whole number of positions, as PyTorch's", "[rope][scaling][golden]") {
  PositionConfig p = rope_position();
  p.set("resonance", true);
  const std::vector<double> f = RotaryEmbedding::inverse_frequencies(64, p);
  CHECK(worst_relative(f, aux("rope_resonance", "resonance_inv_freq")) < 1e-14);
  // so each pair's rotation repeats exactly every round(2 pi / theta_i) positions, up to 1e5
  const RotaryEmbedding rope(64, p);
  for (size_t i = 0; i < f.size(); ++i) {
    const double wavelength = kTwoPi / f[i];
    CHECK(std::abs(wavelength - std::round(wavelength)) < 1e-9);
    const auto period = static_cast<int64_t>(std::llround(wavelength));
    if (period > 50000) continue;
    const std::vector<double> c = rope.tables_at({3, 3 + period, 100000 - period, 100000}).cos.to_doubles();
    CHECK(c[i] == Approx(c[32 + i]).margin(1e-9));
    CHECK(c[64 + i] == Approx(c[96 + i]).margin(1e-9));
  }
  // with a scaling, the scaled frequencies are rounded (Resonance YaRN)
  PositionConfig yarn = scheduled("yarn", 4.0, 512);
  const std::vector<double> yarn_f = RotaryEmbedding::inverse_frequencies(64, yarn);
  yarn.set("resonance", true);
  CHECK(RotaryEmbedding::inverse_frequencies(64, yarn) == resonance_frequencies(yarn_f));
  CHECK(resonance_frequencies({0.0}) == std::vector<double>{0.0});
}

TEST_CASE("proportional is p_rope under Hugging Face's name: the same model bit for bit", "[p_rope]") {
  ModelConfig p = tiny_config("p_rope"), proportional = tiny_config("proportional");
  p.position.set("kept_frequency_fraction", 0.5);
  proportional.position.set("kept_frequency_fraction", 0.5);
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 12, p.vocab_size, 4, 0, 3);
  CHECK(eval_logits(p, b) == eval_logits(proportional, b));
  CHECK(position_encoding("proportional").options.size() == position_encoding("p_rope").options.size());
}

TEST_CASE("rope schedules: finite-difference gradients beyond the training length", "[rope][scaling][gradcheck]") {
  const std::string scaling = GENERATE("llama3", "dynamic_ntk", "longrope", "resonance");
  CAPTURE(scaling);
  PositionConfig p =
      scaling == "longrope" ? longrope(3.0, 6) : scheduled(scaling == "resonance" ? "none" : scaling, 3.0, 6);
  if (scaling == "resonance") p.set("resonance", true);
  EncoderClassifier model(rope_model(p), DType::F64);
  model.initialize(8);
  const ToyBatch b = make_toy_batch(ToyTask::order, 3, 13, 12, 9, 1, 4);
  const auto entries = finite_difference_gradients(
      model, b, [](const std::string& name) { return name.find("attn.q.weight") != std::string::npos; }, 12);
  CHECK(entries.size() > 10);
  CHECK(worst_gradient_error(entries) < 1e-7);
}

TEST_CASE("rope schedules: config rules name the key", "[rope][scaling][config]") {
  ModelConfig c = rope_model(scheduled("llama3", 8.0, 512));
  c.position.set("high_freq_factor", 1.0);
  CHECK_THROWS_WITH(c.validate(), Contains("model.position.high_freq_factor") && Contains("low_freq_factor"));
  ModelConfig d = rope_model(scheduled("dynamic_ntk", 2.0, 512));
  d.position.set("fraction", 0.25);  // 2 of the head's 8 dims
  CHECK_THROWS_WITH(d.validate(), Contains("model.position.scaling") && Contains("dynamic_ntk"));
  ModelConfig few = rope_model(longrope(2.0, 512, {1, 2, 3}));
  CHECK_THROWS_WITH(few.validate(), Contains("model.position.short_factors: longrope needs one factor per rotated "
                                             "pair: 4") &&
                                        Contains("got 3"));
  CHECK_THROWS_WITH(rope_model(longrope(2.0, 512, {1, 2, 3, 4}, {1, 0, 1, 1})).validate(),
                    Contains("model.position.long_factors: every factor must be a finite number > 0"));
  ModelConfig stray = rope_model(scheduled("yarn", 2.0, 512));
  stray.position.set("long_factors", std::vector<double>{1, 2, 3, 4});
  CHECK_THROWS_WITH(stray.validate(), Contains("model.position.long_factors: applies to scaling: longrope only"));
  ModelConfig r = tiny_config("p_rope");
  r.position.set("resonance", true);
  CHECK_THROWS_WITH(r.validate(), Contains("model.position.resonance") && Contains("not p_rope"));
}

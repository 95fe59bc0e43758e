// The encodings' causal (decoder) forms, selected by ForwardContext::causal:
// T5's unidirectional buckets, the ALiBi paper's causal schedule for
// directional ALiBi with fixed slopes, and finite-difference gradients of the
// bias parameters through causal attention on both kernels. (Golden values:
// test_golden.cpp's *_causal files; causality itself: test_causal_attention.cpp.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "model_test_support.h"
#include "models/alibi.h"
#include "models/position_encoding.h"
#include "models/t5_relative_bias.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

// An encoding with its parameters allocated and initialised.
struct BuiltCausal {
  ParameterStore store;
  std::unique_ptr<PositionEncoding> encoding;
  explicit BuiltCausal(const ModelConfig& c) : store(DType::F64) {
    encoding = make_position_encoding(store, c);
    store.allocate(4);
    encoding->initialize(store, 4);
  }
  std::vector<double> table(int64_t length, bool causal) const {
    return encoding->relative_bias(store, 0, length, causal).value().to_doubles();
  }
};

}  // namespace

TEST_CASE("t5 decoder buckets: every bucket for keys at or before the query (32 buckets, max distance 128)",
          "[t5][causal]") {
  CHECK(t5_causal_bucket(0, 32, 128) == 0);
  CHECK(t5_causal_bucket(-1, 32, 128) == 1);
  CHECK(t5_causal_bucket(-15, 32, 128) == 15);  // last exact bucket: num_buckets/2 of them
  CHECK(t5_causal_bucket(-16, 32, 128) == 16);  // first log-spaced bucket
  CHECK(t5_causal_bucket(-32, 32, 128) == 21);  // 16 + floor(16 log(2)/log(8)) = 16 + 5
  CHECK(t5_causal_bucket(-127, 32, 128) == 31);
  CHECK(t5_causal_bucket(-100000, 32, 128) == 31);
  CHECK(t5_causal_bucket(5, 32, 128) == 0);  // a key after the query (never read under a causal mask)
  for (int64_t n = 1; n <= 300; ++n) CHECK(t5_causal_bucket(-n, 32, 128) >= t5_causal_bucket(-(n - 1), 32, 128));
}

TEST_CASE("t5 bias: causal table [H, 2N-1] reads the decoder bucket of j - i, the encoder table is unchanged",
          "[t5][causal]") {
  const BuiltCausal t5(tiny_config("t5_bias"));
  const int64_t n = 40, offsets = 2 * n - 1, heads = 2;
  const std::vector<double> causal = t5.table(n, true), encoder = t5.table(n, false);
  const std::vector<double> weights = t5.store.value(t5.store.id("position.t5_bias.weight")).to_doubles();
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t k = 0; k < offsets; ++k) {
      const int64_t rel = n - 1 - k;  // j - i
      CHECK(causal[h * offsets + k] == weights[t5_causal_bucket(rel, 32, 128) * heads + h]);
      CHECK(encoder[h * offsets + k] == weights[t5_bucket(rel, 32, 128) * heads + h]);
    }
}

TEST_CASE("t5 bias: causal buckets need max_distance above num_buckets/2", "[t5][causal]") {
  ModelConfig c = tiny_config("t5_bias");
  c.position.set("max_distance", 16);  // valid for the encoder (> 32/4), not for the decoder's log range
  const BuiltCausal t5(c);
  CHECK_NOTHROW(t5.table(8, false));
  CHECK_THROWS_AS(t5.table(8, true), ModelConfigError);
}

TEST_CASE("directional ALiBi, fixed slopes, causal: the ALiBi paper's -m_h (i - j) with its H-head schedule",
          "[alibi_directional][causal]") {
  const int64_t heads = GENERATE(2, 6, 8, 12);
  CAPTURE(heads);
  ModelConfig c = tiny_config("alibi_directional");
  c.heads = heads;
  c.d_model = 4 * heads;
  const BuiltCausal alibi(c);
  const int64_t n = 30, offsets = 2 * n - 1;
  const std::vector<double> causal = alibi.table(n, true), encoder = alibi.table(n, false);
  const std::vector<double> paper = alibi_bias(heads, n, DType::F64).to_doubles();
  const bool power_of_two = (heads & (heads - 1)) == 0;
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t k = n - 1; k < offsets; ++k) {  // keys j <= i: the only ones causal attention reads
      CHECK(causal[h * offsets + k] == paper[h * offsets + k]);
      if (power_of_two)  // the split is the schedule, to rounding (its powers are taken of another base)
        CHECK(std::abs(encoder[h * offsets + k] - paper[h * offsets + k]) <= 1e-14 * std::abs(paper[h * offsets + k]));
    }
}

TEST_CASE("causal bias encodings: finite-difference gradients of their parameters through both kernels",
          "[t5][kerple][fire][alibi_directional][causal][gradcheck]") {
  const std::string variant = GENERATE("t5_bias", "t5_bias-randomized", "kerple", "fire", "alibi_directional");
  const AttentionKernel kernel = GENERATE(AttentionKernel::fused, AttentionKernel::composed);
  CAPTURE(variant, option_name(kernel));
  ModelConfig c = with_dropout_on(tiny_config(variant == "t5_bias-randomized" ? "t5_bias" : variant), kernel);
  if (variant == "t5_bias-randomized") c.position.set("randomized", true);  // the table at drawn positions
  if (variant == "alibi_directional") c.position.set("learned_slopes", true);
  EncoderClassifier model(c, DType::F64);
  model.initialize(8);
  const int64_t n = 37;
  const ToyBatch b = make_toy_batch(ToyTask::order, 4, n, 12, 9, 1, /*min_len=*/2);
  auto position_parameter = [](const std::string& name) {
    return name.rfind("position.", 0) == 0 || name.find(".attn.fire.") != std::string::npos;
  };
  const std::vector<GradientEntry> entries = finite_difference_gradients(model, b, position_parameter, 0, 1e-6, true);
  REQUIRE(!entries.empty());
  for (const GradientEntry& g : entries) {
    CAPTURE(g.name, g.index, g.analytic, g.numeric);
    CHECK(std::abs(g.analytic - g.numeric) < 1e-8 + 1e-6 * std::abs(g.numeric));
  }
  if (variant != "t5_bias") return;
  // Padded queries reach no output: the rows of the decoder buckets of distances below the longest row's
  // length get gradients, the others none.
  const int64_t longest = *std::max_element(b.lengths.begin(), b.lengths.end());
  std::vector<bool> reached(32, false);
  for (int64_t d = 0; d < longest; ++d) reached[static_cast<size_t>(t5_causal_bucket(-d, 32, 128))] = true;
  for (const GradientEntry& g : entries) {
    CAPTURE(g.index);
    CHECK((g.analytic != 0.0) == reached[static_cast<size_t>(g.index / 2)]);
  }
}

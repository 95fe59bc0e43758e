// The attention-distance profile of a hand-set model whose attention is the
// ALiBi bias alone (q = k = 0), against the formula.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>

#include "models/alibi.h"
#include "tests/models/model_test_support.h"
#include "trainers/diagnostics/offset_profile.h"

namespace rotor {
namespace {

// profile_h(d) = (1/|R|) sum over the query rows i in R of softmax_j(-m_h |i - j|)[i + d], one window of N
// slots; R: every row unless given.
std::vector<double> alibi_profile(double slope, int64_t n, std::vector<int64_t> rows = {}) {
  if (rows.empty())
    for (int64_t i = 0; i < n; ++i) rows.push_back(i);
  std::vector<double> profile(static_cast<size_t>(2 * n - 1), 0.0);
  const double count = static_cast<double>(rows.size());
  for (const int64_t i : rows) {
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) sum += std::exp(-slope * std::abs(i - j));
    for (int64_t j = 0; j < n; ++j) profile[j - i + n - 1] += std::exp(-slope * std::abs(i - j)) / sum / count;
  }
  return profile;
}

// A one-layer ALiBi classifier whose q and k are zero: its attention is the bias alone.
std::unique_ptr<EncoderClassifier> bias_only_model() {
  ModelConfig c = model_test::tiny_config("alibi");
  c.heads = 4;
  auto model = std::make_unique<EncoderClassifier>(c);
  model->initialize(3);
  for (const char* name :
       {"layers.0.attn.q.weight", "layers.0.attn.q.bias", "layers.0.attn.k.weight", "layers.0.attn.k.bias"})
    model->parameters().value(model->parameters().id(name)).zero();
  return model;
}

// A document of `length` tokens 4, 5, 6, 7, 8, 4, 5, ... (token 4 at every fifth position from 0).
std::vector<int32_t> cycling_doc(int64_t length) {
  std::vector<int32_t> doc;
  for (int64_t t = 0; t < length; ++t) doc.push_back(static_cast<int32_t>(4 + t % 5));
  return doc;
}

TEST_CASE("the offset profile of attention by the ALiBi bias alone matches its formula", "[diagnostics][offsets]") {
  const std::unique_ptr<EncoderClassifier> owned = bias_only_model();
  const EncoderClassifier& model = *owned;
  const int64_t n = 20;
  TokenizedSplit split;
  split.name = "val";
  const std::vector<int32_t> doc = cycling_doc(30);
  split.add(doc, 0);
  split.add({5}, 0);  // one token: skipped
  split.add(doc, 1);
  const nlohmann::json profiles = measure_offset_profiles(model, split, n, 10, Precision::fp32).to_json();
  CHECK(profiles["windows"] == 2);
  CHECK(profiles["max_offset"] == n - 1);
  const std::vector<double> slopes = alibi_slopes(4);
  for (int64_t h = 0; h < 4; ++h) {
    CAPTURE(h);
    const std::vector<double> expected = alibi_profile(slopes[h], n);
    const auto& head = profiles["layers"][0]["heads"][h];
    const std::vector<double> got = head["profile"];
    REQUIRE(got.size() == expected.size());
    double distance = 0, total = 0;
    for (size_t d = 0; d < got.size(); ++d) {
      CHECK(got[d] == Approx(expected[d]).margin(1e-6));
      distance += expected[d] * std::abs(static_cast<double>(d) - (n - 1));
      total += got[d];
    }
    CHECK(total == Approx(1.0).margin(1e-5));
    CHECK(head["mean_distance"].get<double>() == Approx(distance).margin(1e-5));
  }
}

TEST_CASE("an offset profile from one query token counts only the rows whose query it is", "[diagnostics][offsets]") {
  const std::unique_ptr<EncoderClassifier> owned = bias_only_model();
  const EncoderClassifier& model = *owned;
  const int64_t n = 20;
  TokenizedSplit split;
  split.name = "val";
  split.add(cycling_doc(n), 0);  // token 4 at 0, 5, 10, 15
  const nlohmann::json profiles = measure_offset_profiles(model, split, n, 10, Precision::fp32, 4).to_json();
  const std::vector<double> slopes = alibi_slopes(4);
  for (int64_t h = 0; h < 4; ++h) {
    CAPTURE(h);
    const std::vector<double> expected = alibi_profile(slopes[h], n, {0, 5, 10, 15});
    const std::vector<double> got = profiles["layers"][0]["heads"][h]["profile"];
    REQUIRE(got.size() == expected.size());
    for (size_t d = 0; d < got.size(); ++d) CHECK(got[d] == Approx(expected[d]).margin(1e-6));
  }
  // The rows of every query differ from those of token 4's: the filter is not a no-op.
  const std::vector<double> every = alibi_profile(slopes[0], n);
  const std::vector<double> got = profiles["layers"][0]["heads"][0]["profile"];
  CHECK(std::abs(got[n - 1 + 10] - every[n - 1 + 10]) > 1e-3);
  CHECK_THROWS_WITH(measure_offset_profiles(model, split, n, 10, Precision::fp32, 99),
                    Catch::Contains("no query of the first 20 tokens of split val is token 99"));
}

TEST_CASE("an offset profile needs a document of two tokens", "[diagnostics][offsets]") {
  EncoderClassifier model(model_test::tiny_config("rope"));
  model.initialize(3);
  TokenizedSplit split;
  split.name = "val";
  split.add({5}, 0);
  CHECK_THROWS_WITH(measure_offset_profiles(model, split, 16, 10, Precision::fp32),
                    Catch::Contains("split val has no document of 2 tokens or more"));
}

}  // namespace
}  // namespace rotor

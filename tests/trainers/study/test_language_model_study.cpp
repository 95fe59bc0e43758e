// A language-model study's statistics on cases whose answer is known: per
// window nats weighted by the tokens each window scores (identical runs tied,
// a planted loss gap found with the lower loss first, the mean a ratio of
// sums), the evidence gathered from LM sweep cells (scalings as variants of
// their own, no order control or usage), the verdict's "<" and the sweep
// record's LM cell.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/random.h"
#include "tests/trainers/study/study_fixture.h"
#include "trainers/run/declared_scores.h"
#include "trainers/run/run_directory.h"
#include "trainers/study/length_sweep.h"
#include "trainers/study/study_evidence.h"
#include "trainers/study/study_statistics.h"
#include "trainers/study/study_verdict.h"

using namespace rotor;

namespace {

constexpr int kWindows = 300;
constexpr int64_t kTokens = 128;

// Per-window nats summed over kTokens tokens of mean `loss` plus seeded noise.
std::vector<double> window_nats(uint64_t stream, double loss) {
  std::vector<double> nats(kWindows);
  const RandomKey key{11, stream, 0};
  for (int w = 0; w < kWindows; ++w) nats[w] = kTokens * (loss + 0.3 * (key.uniform_double(w) - 0.5));
  return nats;
}

CellOutcomes weighted_cell(std::vector<VariantOutcomes> variants) {
  CellOutcomes c{"test", 1024, "none", std::move(variants), {}};
  c.weights.assign(kWindows, static_cast<double>(kTokens));
  c.lower_is_better = true;
  return c;
}

StatisticsOptions fast_options() {
  StatisticsOptions o;
  o.replicates = 1000;
  return o;
}

RunResult lm_run(const std::string& variant, uint64_t seed, double loss, const std::string& scaling = "none") {
  RunResult r;
  r.run = {variant, seed, variant + "-seed" + std::to_string(seed)};
  r.dir = "/runs/" + r.run.id;
  r.finished = true;
  for (const std::string& s : std::vector<std::string>{"none", scaling}) {
    SweepCell c;
    c.split = "test";
    c.length = 1024;
    c.scaling = s;
    c.available = true;
    c.stream_windows = true;
    c.stride = 1024;
    c.window_nats = window_nats(seed * 10 + (s == "none" ? 0 : 1), s == "none" ? loss : loss - 0.5);
    c.window_tokens.assign(kWindows, kTokens);
    c.documents = kWindows;
    r.sweep.push_back(c);
    if (scaling == "none") break;
  }
  return r;
}

// A variant of a causal language-model study (its row decides the units: windows).
StudyVariant variant_named(const std::string& name, const std::string& position) {
  StudyVariant v;
  v.name = name;
  v.config.model.position.type = position;
  v.config.train.objective = ObjectiveKind::clm;
  return v;
}

}  // namespace

TEST_CASE("LM statistics: identical runs are tied with p = 1", "[study][statistics]") {
  std::map<int64_t, std::vector<double>> runs;
  for (int64_t seed : {1, 2, 3}) runs[seed] = window_nats(seed, 2.0);
  const CellStatistics c = cell_statistics(weighted_cell({{"rope", runs}, {"alibi", runs}}), fast_options());
  CHECK(c.lower_is_better);
  REQUIRE(c.pairs.size() == 1);
  CHECK(c.pairs[0].difference == 0.0);
  CHECK(c.pairs[0].p == 1.0);
  CHECK_FALSE(c.pairs[0].different);
  CHECK(c.variants[0].tier == 1);
  CHECK(c.variants[1].tier == 1);
  CHECK(split_verdict({c}, 0.05).find("all variants tied") != std::string::npos);
}

TEST_CASE("LM statistics: a planted loss gap is found, the lower loss ranked first", "[study][statistics]") {
  std::map<int64_t, std::vector<double>> rope, alibi;
  for (int64_t seed : {1, 2, 3}) {
    rope[seed] = window_nats(seed, 2.3);
    alibi[seed] = window_nats(seed + 100, 2.0);
  }
  const CellStatistics c = cell_statistics(weighted_cell({{"rope", rope}, {"alibi", alibi}}), fast_options());
  const PairStatistics& p = c.pairs.at(0);
  CHECK(p.difference == Approx(0.3).margin(0.03));  // rope - alibi in nats per token
  CHECK(p.ci_low > 0.0);
  CHECK(p.different);
  CHECK(c.variants[1].tier == 1);  // alibi, the lower loss
  CHECK(c.variants[0].tier == 2);
  CHECK(c.variants[1].mean == Approx(2.0).margin(0.02));
  CHECK(split_verdict({c}, 0.05) == "alibi < rope at 1024 tokens (p < 0.001)");
}

TEST_CASE("LM statistics: the mean is summed nats over summed tokens, not a mean of window means",
          "[study][statistics]") {
  // Two windows: 10 nats over 10 tokens and 30 nats over 10 tokens, then 10 over 10 and 10 over 30 (loss cells).
  CellOutcomes equal{"test", 64, "none", {{"a", {{1, {10.0, 30.0}}}}}, {10.0, 10.0}, true};
  CellOutcomes unequal{"test", 64, "none", {{"a", {{1, {10.0, 10.0}}}}}, {10.0, 30.0}, true};
  CHECK(cell_statistics(equal, fast_options()).variants[0].mean == 2.0);
  CHECK(cell_statistics(unequal, fast_options()).variants[0].mean == 0.5);  // 20 / 40, where window means give 0.67
  unequal.weights.pop_back();
  CHECK_THROWS(cell_statistics(unequal, fast_options()));
  CellOutcomes negative{"test", 64, "none", {{"a", {{1, {-1.0, 10.0}}}}}, {10.0, 10.0}, true};
  CHECK_THROWS(cell_statistics(negative, fast_options()));
}

TEST_CASE("LM evidence: loss cells with scalings as variants, no order control or usage", "[study]") {
  const std::vector<StudyVariant> variants{variant_named("rope", "rope"), variant_named("alibi", "alibi"),
                                           variant_named("none", "none")};
  std::vector<RunResult> runs;
  for (uint64_t seed : {1, 2}) {
    runs.push_back(lm_run("rope", seed, 3.0, "ntk"));
    runs.push_back(lm_run("alibi", seed + 50, 2.0));
    runs.back().run.seed = seed;
    runs.push_back(lm_run("none", seed + 70, 2.0));
    runs.back().run.seed = seed;
  }
  StatisticsOptions options;
  options.replicates = 2000;
  const StudyEvidence e = gather_evidence(variants, runs, options, "");
  CHECK(e.unit == EvidenceUnit::window);
  CHECK(e.nats_per_token());
  CHECK_FALSE(e.classes_predicted());
  CHECK(e.reference.empty());
  CHECK(e.order.empty());
  CHECK(e.usage.empty());
  REQUIRE(e.cells.size() == 1);
  const CellStatistics& c = e.cells[0];
  REQUIRE(c.variants.size() == 4);  // rope, rope+ntk, alibi, none
  CHECK(c.variants[1].name == "rope+ntk");
  CHECK(c.variants[1].mean == Approx(2.5).margin(0.02));
  CHECK(c.variants[0].tier == 3);
  CHECK(c.variants[1].tier == 2);
  CHECK(c.variants[2].tier == 1);
  CHECK(c.variants[3].tier == 1);
  REQUIRE(e.verdicts.size() == 1);
  CHECK(e.verdicts[0] ==
        "test: rope higher loss than every other variant at 1024 tokens (p < 0.01); alibi, none < rope+ntk at 1024 "
        "tokens (p < 0.01); alibi, none tied");
}

TEST_CASE("LM evidence: runs scored on other windows are refused", "[study]") {
  std::vector<RunResult> runs{lm_run("rope", 1, 2.0), lm_run("alibi", 1, 2.0)};
  runs[1].sweep[0].window_tokens[0] = 5;
  CHECK_THROWS_WITH(gather_evidence({variant_named("rope", "rope"), variant_named("alibi", "alibi")}, runs, {}, ""),
                    Catch::Contains("windows at 1024 tokens differ"));
}

TEST_CASE("a language model's sweep cell round-trips through JSON, a classifier's has no LM keys", "[study]") {
  SweepCell lm = lm_run("rope", 1, 2.0).sweep[0];
  lm.scores = declared_scores(objective_spec(ObjectiveKind::clm), {{"loss", 2.0}, {"accuracy", 0.4}});
  const nlohmann::json j = lm;
  CHECK(j.at("metrics").at("perplexity").get<double>() == std::exp(2.0));
  CHECK(j.at("metrics").at("bits_per_token").get<double>() == 2.0 / std::log(2.0));
  CHECK_FALSE(j.contains("predictions"));
  const SweepCell back = j.get<SweepCell>();
  CHECK(back.stream_windows);
  CHECK(back.stride == 1024);
  CHECK(back.max_tokens == 0);
  CHECK(back.window_nats == lm.window_nats);
  CHECK(back.window_tokens == lm.window_tokens);
  CHECK(back.scores == lm.scores);

  SweepCell classifier;
  classifier.split = "test";
  classifier.length = 64;
  classifier.available = true;
  classifier.predictions = {1, 0};
  classifier.labels = {1, 1};
  const nlohmann::json k = classifier;
  for (const char* key : {"language_model", "stride", "window_nats", "perplexity"}) CHECK_FALSE(k.contains(key));
  CHECK_FALSE(k.get<SweepCell>().stream_windows);
}

TEST_CASE("sweep cells written before the metric map read into the same metric names", "[study]") {
  const SweepCell lm = nlohmann::json::parse(R"({"split": "test", "length": 64, "scaling": "none",
      "available": true, "language_model": true, "stride": 64, "max_tokens": 0, "accuracy": 0.25, "loss": 2.0,
      "perplexity": 7.38905609893065, "bits_per_token": 2.8853900817779268, "documents": 1,
      "window_nats": [128.0], "window_tokens": [64]})")
                           .get<SweepCell>();
  CHECK(lm.scores == declared_scores(objective_spec(ObjectiveKind::clm), {{"loss", 2.0}, {"accuracy", 0.25}}));
  const SweepCell classifier = nlohmann::json::parse(R"({"split": "test", "length": 64, "scaling": "none",
      "available": true, "accuracy": 0.5, "macro_f1": 0.25, "loss": 0.75, "documents": 2,
      "predictions": [1, 0], "labels": [1, 1]})")
                                   .get<SweepCell>();
  CHECK(classifier.scores == SplitScores{{"accuracy", 0.5}, {"macro_f1", 0.25}, {"loss", 0.75}});
  CHECK(nlohmann::json(classifier).at("metrics") ==
        nlohmann::json{{"accuracy", 0.5}, {"macro_f1", 0.25}, {"loss", 0.75}});
}

TEST_CASE("a language model's sweep cell scored under another token budget or stride is evaluated again", "[study]") {
  const auto dir = test::fresh_dir("lm-sweep-budget");
  SweepCell stored = lm_run("rope", 1, 2.0).sweep[0];
  stored.max_tokens = 65536;
  RunDirectory(dir.string()).write_length_sweep({"ckpt", {stored}});
  CHECK(nlohmann::json(stored).at("max_tokens") == 65536);

  SweepCell point = stored;  // a plan's point: no scores
  point.available = false;
  point.window_nats.clear();
  point.window_tokens.clear();
  CHECK(missing_points(dir.string(), {point}).empty());
  point.max_tokens = 0;  // the whole split
  CHECK(missing_points(dir.string(), {point}).size() == 1);
  point.max_tokens = 65536;
  point.stride = 512;
  CHECK(missing_points(dir.string(), {point}).size() == 1);
}

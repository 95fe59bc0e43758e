// The statistics of a study cell on cases whose answer is known: identical
// runs, a planted large difference, one document of noise, a hand-computed
// Holm correction, a deterministic interval, the normal approximation of a
// one-seed Bernoulli mean, pairing, determinism and missing runs.
#include <catch2/catch.hpp>

#include <cmath>

#include "datasets/data_error.h"
#include "engine/random.h"
#include "trainers/config/config.h"
#include "trainers/study/study_statistics.h"
#include "trainers/study/study_verdict.h"

using namespace rotor;

namespace {

// 0/1 scores, each document correct with probability `rate`, a fresh draw per stream.
std::vector<double> bernoulli(uint64_t stream, int64_t documents, double rate) {
  std::vector<double> scores(static_cast<size_t>(documents));
  const RandomKey key{7, stream, 0};
  for (int64_t d = 0; d < documents; ++d) scores[d] = key.uniform_double(d) < rate ? 1.0 : 0.0;
  return scores;
}

VariantOutcomes variant(const std::string& name, const std::map<int64_t, std::vector<double>>& runs) {
  return {name, runs};
}

CellOutcomes cell_of(std::vector<VariantOutcomes> variants, int64_t length = 512) {
  return {"test", length, "none", std::move(variants)};
}

StatisticsOptions fast(int64_t replicates = 1000) {
  StatisticsOptions o;
  o.replicates = replicates;
  return o;
}

const VariantStatistics& named(const CellStatistics& c, const std::string& name) {
  for (const VariantStatistics& v : c.variants)
    if (v.name == name) return v;
  FAIL("no variant " << name);
  return c.variants.front();
}

}  // namespace

TEST_CASE("statistics: identical runs differ by exactly 0 with p = 1 and are all tied", "[study][statistics]") {
  std::map<int64_t, std::vector<double>> runs;
  for (int64_t seed : {1, 2, 3}) runs[seed] = bernoulli(seed, 200, 0.7);
  const CellStatistics c =
      cell_statistics(cell_of({variant("rope", runs), variant("alibi", runs), variant("none", runs)}), fast());
  REQUIRE(c.pairs.size() == 3);
  for (const PairStatistics& p : c.pairs) {
    CHECK(p.difference == 0.0);
    CHECK(p.ci_low == 0.0);
    CHECK(p.ci_high == 0.0);
    CHECK(p.p == 1.0);
    CHECK(p.p_holm == 1.0);
    CHECK_FALSE(p.different);
  }
  for (const VariantStatistics& v : c.variants) CHECK(v.tier == 1);
  CHECK(named(c, "rope").mean == named(c, "none").mean);
  CHECK(split_verdict({c}, 0.05) == "no difference the data can resolve: all variants tied (Holm-corrected p >= 0.05)");
}

TEST_CASE("statistics: a planted 90% against 50% is found with a tiny p", "[study][statistics]") {
  std::map<int64_t, std::vector<double>> good, bad;
  for (int64_t seed : {1, 2, 3}) {
    good[seed] = bernoulli(10 + seed, 500, 0.9);
    bad[seed] = bernoulli(20 + seed, 500, 0.5);
  }
  const StatisticsOptions o = fast();
  const CellStatistics c = cell_statistics(cell_of({variant("B", bad), variant("A", good)}), o);
  REQUIRE(c.pairs.size() == 1);
  const PairStatistics& p = c.pairs[0];
  CHECK(p.a == "B");
  CHECK(p.difference == Approx(named(c, "B").mean - named(c, "A").mean).margin(1e-12));
  CHECK(p.difference == Approx(-0.4).margin(0.05));
  CHECK(p.ci_high < -0.3);
  // No replicate reaches 0: the floor 1 / (B + 1).
  CHECK(p.p == Approx(1.0 / 1001.0));
  CHECK(p.different);
  CHECK(named(c, "A").tier == 1);
  CHECK(named(c, "B").tier == 2);
  CHECK(split_verdict({c}, 0.05) == "A > B at 512 tokens (p < 0.001)");
}

TEST_CASE("statistics: one document of 200 is below the noise", "[study][statistics]") {
  std::map<int64_t, std::vector<double>> a, b;
  for (int64_t seed : {1, 2, 3}) {
    a[seed] = bernoulli(seed, 200, 0.6);
    b[seed] = a[seed];
    a[seed][17] = 1.0;
    b[seed][17] = 0.0;
  }
  const CellStatistics c = cell_statistics(cell_of({variant("a", a), variant("b", b)}), fast());
  const PairStatistics& p = c.pairs.at(0);
  CHECK(p.difference == Approx(0.005));
  // The difference is 0 exactly when document 17 is not drawn: (1 - 1/200)^200 = 0.367.
  CHECK(p.p == Approx(2 * 0.367).margin(0.08));
  CHECK_FALSE(p.different);
  CHECK(p.ci_low == 0.0);
  CHECK(named(c, "a").tier == 1);
  CHECK(named(c, "b").tier == 1);
}

TEST_CASE("statistics: Holm's step-down on hand-computed cases", "[study][statistics]") {
  const std::vector<double> adjusted = holm_adjust({0.01, 0.04, 0.03});
  REQUIRE(adjusted.size() == 3);
  CHECK(adjusted[0] == Approx(0.03));
  CHECK(adjusted[1] == Approx(0.06));  // 1 x 0.04 lifted to the 0.06 before it: monotone
  CHECK(adjusted[2] == Approx(0.06));
  const std::vector<double> capped = holm_adjust({0.5, 0.9, 0.001, 0.02});
  CHECK(capped[0] == 1.0);  // 2 x 0.5, then capped
  CHECK(capped[1] == 1.0);
  CHECK(capped[2] == Approx(0.004));
  CHECK(capped[3] == Approx(0.06));
  CHECK(holm_adjust({}).empty());
}

TEST_CASE("statistics: every run all correct gives the interval [1, 1]", "[study][statistics]") {
  const std::vector<double> all(50, 1.0);
  const CellStatistics c =
      cell_statistics(cell_of({variant("x", {{1, all}, {2, all}}), variant("y", {{1, all}, {2, all}})}), fast());
  for (const VariantStatistics& v : c.variants) {
    CHECK(v.mean == 1.0);
    CHECK(v.seed_std == 0.0);
    CHECK(v.ci_low == 1.0);
    CHECK(v.ci_high == 1.0);
    CHECK(v.n_seeds == 2);
    CHECK(v.n_documents == 50);
  }
  CHECK(c.pairs.at(0).p == 1.0);
}

TEST_CASE("statistics: one seed's interval matches the normal approximation", "[study][statistics]") {
  const int64_t n = 2000;
  const CellStatistics c = cell_statistics(cell_of({variant("x", {{1, bernoulli(3, n, 0.7)}})}), fast(4000));
  const VariantStatistics& v = c.variants.at(0);
  const double half = 1.96 * std::sqrt(v.mean * (1 - v.mean) / n);  // 0.020
  CHECK(v.mean == Approx(0.7).margin(0.03));
  CHECK(v.ci_low == Approx(v.mean - half).margin(0.003));
  CHECK(v.ci_high == Approx(v.mean + half).margin(0.003));
  CHECK(v.seed_std == 0.0);
  CHECK(c.pairs.empty());
  CHECK(split_verdict({c}, 0.05) == "nothing to compare: fewer than two variants with finished runs");
}

TEST_CASE("statistics: pairing resolves a small constant lead the separate intervals cannot", "[study][statistics]") {
  // b is a on every document except 8 of 400 (2%) that only b gets right.
  std::map<int64_t, std::vector<double>> a, b;
  for (int64_t seed : {1, 2, 3}) {
    a[seed] = bernoulli(30 + seed, 400, 0.6);
    b[seed] = a[seed];
    int64_t flipped = 0;
    for (size_t d = 0; d < b[seed].size() && flipped < 8; ++d)
      if (b[seed][d] == 0.0) b[seed][d] = 1.0, ++flipped;
  }
  const CellStatistics c = cell_statistics(cell_of({variant("a", a), variant("b", b)}), fast(2000));
  const VariantStatistics &va = named(c, "a"), &vb = named(c, "b");
  CHECK(va.ci_high > vb.ci_low);  // separately, the intervals overlap
  const PairStatistics& p = c.pairs.at(0);
  CHECK(p.difference == Approx(-0.02));
  CHECK(p.ci_high < 0.0);
  CHECK(p.p < 0.01);
  CHECK(p.different);
  CHECK(vb.tier == 1);
  CHECK(va.tier == 2);
}

TEST_CASE("statistics: p < alpha exactly when 0 is outside the interval", "[study][statistics]") {
  // Leads of 0 to 6 documents in 300, each its own two-variant cell, under 8
  // bootstrap seeds. The paired difference is 0 when no flipped document is
  // drawn (chance e^-flips), so p falls on both sides of 0.05. B = 40, the
  // fewest alpha 0.05 allows, puts one replicate in each tail: the cells with
  // exactly one replicate at 0 (p = 2 / 40 = 0.05, not significant) catch an
  // interval off by one order statistic.
  std::map<int64_t, std::vector<double>> base;
  for (int64_t seed : {1, 2}) base[seed] = bernoulli(40 + seed, 300, 0.5);
  int64_t significant = 0, on_the_edge = 0, cells = 0;
  for (int flips = 0; flips <= 6; ++flips) {
    std::map<int64_t, std::vector<double>> better = base;
    for (auto& [seed, scores] : better)
      for (int d = 0, done = 0; done < flips; ++d)
        if (scores[d] == 0.0) scores[d] = 1.0, ++done;
    for (uint64_t bootstrap_seed = 0; bootstrap_seed < 8; ++bootstrap_seed, ++cells) {
      StatisticsOptions o = fast(40);
      o.seed = bootstrap_seed;
      const PairStatistics p =
          cell_statistics(cell_of({variant("better", better), variant("base", base)}), o).pairs.at(0);
      const bool outside = p.ci_low > 0.0 || p.ci_high < 0.0;
      CHECK((p.p < 0.05) == outside);
      significant += outside;
      on_the_edge += p.p == 2.0 / 40;
    }
  }
  CHECK(significant > 0);
  CHECK(significant < cells);
  CHECK(on_the_edge > 0);
}

TEST_CASE("statistics: enough replicates for Holm over every pair", "[study][statistics]") {
  CHECK(minimum_replicates(1, 0.05) == 40);
  CHECK(minimum_replicates(2, 0.05) == 40);
  CHECK(minimum_replicates(3, 0.05) == 60);
  CHECK(minimum_replicates(12, 0.05) == 1320);  // 66 pairs: 66 / 1321 < 0.05
  CHECK(minimum_replicates(12, 0.01) == 6600);
  std::vector<VariantOutcomes> twelve;
  for (int v = 0; v < 12; ++v) twelve.push_back(variant("v" + std::to_string(v), {{1, {1.0, 0.0}}}));
  CHECK_THROWS_WITH(cell_statistics(cell_of(twelve), fast(1319)),
                    Catch::Contains("replicates 1319 is too few: 12 variants at alpha 0.05 need at least 1320"));
  CHECK(cell_statistics(cell_of(twelve), fast(1320)).pairs.size() == 66);
}

TEST_CASE("statistics: holm_resolution draws as many replicates as a cell's pairs need", "[study][statistics]") {
  // 24 rows, as a language-model study's variants times its RoPE scalings: 276 pairs, beyond 5000 replicates at 0.05.
  std::vector<VariantOutcomes> rows;
  for (int v = 0; v < 23; ++v) rows.push_back(variant("v" + std::to_string(v), {{1, {0.5, 0.5}}, {2, {0.5, 0.5}}}));
  rows.push_back(variant("best", {{1, {1.0, 1.0}}, {2, {1.0, 1.0}}}));
  StatisticsOptions o = fast(5000);
  CHECK_THROWS_WITH(cell_statistics(cell_of(rows), o),
                    Catch::Contains("replicates 5000 is too few: 24 variants at alpha 0.05 need at least 5520"));
  o.holm_resolution = 0.01;
  const CellStatistics c = cell_statistics(cell_of(rows), o);
  CHECK(c.replicates == minimum_replicates(24, 0.01));
  CHECK(c.replicates == 27600);
  // Every pair with "best" is as strong as a difference gets, and reads as one after Holm over all 276.
  int64_t different = 0;
  for (const PairStatistics& p : c.pairs) {
    CHECK(p.different == (p.a == "best" || p.b == "best"));
    different += p.different;
  }
  CHECK(different == 23);
  o.replicates = 30000;  // more than the resolution needs is kept
  CHECK(cell_statistics(cell_of(rows), o).replicates == 30000);
}

TEST_CASE("statistics: the same inputs give the same bits, the bootstrap seed matters", "[study][statistics]") {
  std::map<int64_t, std::vector<double>> a, b;
  for (int64_t seed : {1, 2, 3}) {
    a[seed] = bernoulli(50 + seed, 300, 0.6);
    b[seed] = bernoulli(60 + seed, 300, 0.55);
  }
  const CellOutcomes cell = cell_of({variant("a", a), variant("b", b)});
  StatisticsOptions o = fast(500);
  const std::string first = to_json(cell_statistics(cell, o)).dump();
  CHECK(to_json(cell_statistics(cell, o)).dump() == first);
  o.seed = 1;
  CHECK(to_json(cell_statistics(cell, o)).dump() != first);
}

TEST_CASE("statistics: missing runs use the seeds at hand, no run, no interval", "[study][statistics]") {
  const std::vector<double> ones(4, 1.0), half{1.0, 0.0, 1.0, 0.0}, none(4, 0.0);
  // a has seeds 1, 2, 3; b only 1 and 3; c none (nothing finished).
  const CellOutcomes cell = cell_of(
      {variant("a", {{1, ones}, {2, none}, {3, half}}), variant("b", {{1, half}, {3, half}}), variant("c", {})});
  StatisticsOptions o = fast(200);
  o.reference = "b";
  const CellStatistics c = cell_statistics(cell, o);
  CHECK(named(c, "a").n_seeds == 3);
  CHECK(named(c, "a").mean == Approx(0.5));
  CHECK(named(c, "a").seed_std == Approx(0.5));
  CHECK(named(c, "b").n_seeds == 2);
  CHECK(named(c, "c").n_seeds == 0);
  CHECK(named(c, "c").tier == 0);
  CHECK_FALSE(named(c, "c").indistinguishable_from_reference);
  CHECK(named(c, "b").indistinguishable_from_reference);
  REQUIRE(c.pairs.size() == 1);  // nothing to pair c with
  const PairStatistics& p = c.pairs[0];
  CHECK(p.n_seeds == 2);
  CHECK(p.difference == Approx(0.25));  // seeds 1 and 3 only: (1 - 0.5 + 0.5 - 0.5) / 2
  CHECK(find_pair(c, "b", "a") == &p);
  CHECK(find_pair(c, "a", "c") == nullptr);
  const nlohmann::json j = to_json(c);
  CHECK(j["variants"][2]["mean"].is_null());
  CHECK(j["variants"][2]["tier"].is_null());
  CHECK(j["variants"][0]["n_seeds"] == 3);
  CHECK(j["pairs"][0]["a"] == "a");
  CHECK(j["pairs"][0]["p_holm"] == p.p_holm);
}

TEST_CASE("statistics: the reference marks who is indistinguishable from it", "[study][statistics]") {
  std::map<int64_t, std::vector<double>> plain, same, strong;
  for (int64_t seed : {1, 2}) {
    plain[seed] = bernoulli(70 + seed, 300, 0.5);
    same[seed] = plain[seed];
    strong[seed] = bernoulli(80 + seed, 300, 0.95);
  }
  StatisticsOptions o = fast();
  o.reference = "none";
  const CellOutcomes cell = cell_of({variant("none", plain), variant("alibi", same), variant("rope", strong)});
  const CellStatistics c = cell_statistics(cell, o);
  CHECK(named(c, "none").indistinguishable_from_reference);
  CHECK(named(c, "alibi").indistinguishable_from_reference);
  CHECK_FALSE(named(c, "rope").indistinguishable_from_reference);
  CHECK(named(c, "rope").tier == 1);
  CHECK(named(c, "none").tier == 2);
  CHECK(named(c, "alibi").tier == 2);
  CHECK(split_verdict({c}, 0.05) == "rope above every other variant at 512 tokens (p < 0.01); none, alibi tied");
  o.reference = "learned";
  CHECK_THROWS_AS(cell_statistics(cell, o), ConfigError);
}

TEST_CASE("statistics: bad scores and options are refused by name", "[study][statistics]") {
  const std::vector<double> ok(10, 1.0), short_run(9, 1.0);
  CHECK_THROWS_AS(cell_statistics(cell_of({variant("a", {{1, ok}}), variant("b", {{1, short_run}})}), fast()),
                  DataError);
  std::vector<double> bad = ok;
  bad[3] = 1.5;
  CHECK_THROWS_WITH(cell_statistics(cell_of({variant("a", {{1, bad}})}), fast()),
                    Catch::Contains("variant a, seed 1: document 3 has score 1.5"));
  bad[3] = std::nan("");
  CHECK_THROWS_AS(cell_statistics(cell_of({variant("a", {{1, bad}})}), fast()), DataError);
  CHECK_THROWS_AS(cell_statistics(cell_of({variant("a", {{1, ok}}), variant("a", {{2, ok}})}), fast()), DataError);
  CHECK_THROWS_AS(cell_statistics(cell_of({variant("a", {{1, ok}})}), fast(20)), ConfigError);
  StatisticsOptions o = fast();
  o.alpha = 0.0;
  CHECK_THROWS_AS(cell_statistics(cell_of({variant("a", {{1, ok}})}), o), ConfigError);
}

// A suite's papers' scores across tasks (suite_papers.h): the mean over tasks,
// the mean reciprocal rank with tied scores sharing the better rank, and the
// randomized twins' gain over their plain encodings, paired by config.
#include <cmath>

#include <catch2/catch.hpp>

#include "trainers/study/suite_papers.h"

using namespace rotor;

namespace {

StudyVariant suite_variant(const std::string& name, const std::string& type, bool randomized) {
  StudyVariant v{name};
  v.config.model.position.type = type;
  if (randomized) v.config.model.position.set("randomized", true);
  return v;
}

PapersScore score(const std::string& suite_variant, double reported) {
  PapersScore p{suite_variant};
  p.reported = p.best = p.mean = reported;
  p.seeds = 1;
  return p;
}

}  // namespace

TEST_CASE("a suite ranks variants per task and averages reciprocal ranks and randomized gains", "[sequence]") {
  const std::vector<StudyVariant> variants = {suite_variant("rope", "rope", false),
                                              suite_variant("none", "none", false),
                                              suite_variant("rope-randomized", "rope", true)};
  const std::vector<TaskPapersScores> tasks = {
      {"copy", {score("rope", 0.5), score("none", 0.9), score("rope-randomized", 0.7)}},  // ranks 3, 1, 2
      {"sort", {score("rope", 0.6), score("none", 0.6), score("rope-randomized", 0.4)}},  // ranks 1, 1, 3
      {"parity", {score("none", 0.5)}},                                                   // rope unscored
  };
  const SuitePapersSummary s = summarise_papers_scores(tasks, variants);
  REQUIRE(s.variants == std::vector<std::string>{"rope", "none", "rope-randomized"});
  CHECK(s.mean_reciprocal_rank[0] == Approx((1.0 / 3 + 1.0) / 2));
  CHECK(s.mean_reciprocal_rank[1] == Approx((1.0 + 1.0 + 1.0) / 3));
  CHECK(s.mean_reciprocal_rank[2] == Approx((0.5 + 1.0 / 3) / 2));
  CHECK(s.mean_score[1] == Approx((0.9 + 0.6 + 0.5) / 3));
  const RandomizedGains& g = s.randomized;
  REQUIRE(g.pairs.size() == 1);
  CHECK(g.pairs[0].plain == "rope");
  CHECK(g.pairs[0].randomized == "rope-randomized");
  REQUIRE(g.tasks == std::vector<std::string>{"copy", "sort"});  // parity scores neither twin
  CHECK(g.gain[0][0] == Approx(0.2));
  CHECK(g.gain[1][0] == Approx(-0.2));
  // Two task means, +0.2 and -0.2: sd 0.2 sqrt 2, so the half-width is t(0.975, 1) = 12.7062 x 0.2.
  CHECK(g.mean == Approx(0.0).margin(1e-12));
  CHECK(g.high == Approx(12.7062 * 0.2).epsilon(1e-4));
  CHECK(g.low == Approx(-12.7062 * 0.2).epsilon(1e-4));
  const std::string md = suite_papers_markdown(tasks, variants, "Protocol.", "\n![randomized_gain](plots/x.png)\n");
  CHECK_THAT(md, Catch::Contains("| copy | 50.0 | **90.0** | 70.0 |"));
  CHECK_THAT(md, Catch::Contains("| sort | **60.0** | **60.0** | 40.0 |"));
  CHECK_THAT(md, Catch::Contains("| parity | – | **50.0** | – |"));
  CHECK_THAT(md, Catch::Contains("| *mean reciprocal rank* | 0.67 | 1.00 | 0.42 |"));
  CHECK_THAT(md, Catch::Contains("| Task | rope | mean |"));
  CHECK_THAT(md, Catch::Contains("| copy | +20.0 | +20.0 |\n| sort | -20.0 | -20.0 |\n| *mean over tasks* | 0.0 | "
                                 "0.0 |\n"));
  CHECK_THAT(md, Catch::Contains("add 0.0 points on average over the 2 tasks (95% interval -254.1 to +254.1"));
  CHECK_THAT(md, Catch::Contains("of the 2 (task, encoding) pairs, 1 gain, 1 lose and 0 are equal."));
  CHECK_THAT(md, Catch::EndsWith("(abstract).\n\n![randomized_gain](plots/x.png)\n"));  // the plot after the gains
  const nlohmann::json j = suite_papers_json(tasks, variants);
  CHECK(j["variants"]["none"]["mean_reciprocal_rank"].get<double>() == Approx(1.0));
  CHECK(j["tasks"]["parity"].size() == 1);
}

TEST_CASE("a suite without papers' scores has no such section", "[sequence]") {
  const std::vector<StudyVariant> variants = {suite_variant("rope", "rope", false)};
  CHECK(suite_papers_markdown({{"listops", {}}}, variants, "Protocol.", "plot").empty());
  const SuitePapersSummary s = summarise_papers_scores({{"listops", {}}}, variants);
  CHECK(std::isnan(s.mean_reciprocal_rank[0]));
  CHECK(s.randomized.tasks.empty());
}

TEST_CASE("a suite ranks its variants again over the tasks some variant learnt in distribution", "[sequence]") {
  const std::vector<StudyVariant> variants = {suite_variant("rope", "rope", false),
                                              suite_variant("none", "none", false)};
  auto learnt = [](PapersScore p, double in_distribution) {
    p.in_distribution = in_distribution;
    return p;
  };
  const std::vector<TaskPapersScores> tasks = {
      {"copy", {learnt(score("rope", 0.3), 0.99), learnt(score("none", 0.8), 0.97)}},    // learnt: none first
      {"parity", {learnt(score("rope", 0.6), 0.55), learnt(score("none", 0.5), 0.89)}},  // not learnt: below 90%
      {"listops", {score("rope", 0.7), score("none", 0.2)}},  // no in-distribution score: not called unlearnt
  };
  CHECK_FALSE(unlearnt_in_distribution(tasks[0]));
  CHECK(unlearnt_in_distribution(tasks[1]));
  CHECK_FALSE(unlearnt_in_distribution(tasks[2]));
  const SuitePapersSummary s = summarise_papers_scores(tasks, variants);
  CHECK(s.learnt == std::vector<std::string>{"copy", "listops"});
  CHECK(s.mean_reciprocal_rank[0] == Approx((0.5 + 1.0 + 1.0) / 3));  // rope "wins" parity by noise
  CHECK(s.learnt_reciprocal_rank[0] == Approx((0.5 + 1.0) / 2));
  CHECK(s.learnt_reciprocal_rank[1] == Approx((1.0 + 0.5) / 2));
  const std::string md = suite_papers_markdown(tasks, variants, "Protocol.", "PLOT");
  CHECK_THAT(md, Catch::Contains("| *mean reciprocal rank* | 0.83 | 0.67 |"));
  CHECK_THAT(md, !Catch::Contains("PLOT"));  // no randomized twins: no gains, so no plot of them
  CHECK_THAT(md, Catch::Contains("| *mean reciprocal rank, learnt tasks* | 0.75 | 0.75 |"));
  CHECK_THAT(md, Catch::Contains("Not learnt in distribution (no variant reaches 90% by this metric on the test "
                                 "split, at the training lengths): parity."));
  const nlohmann::json j = suite_papers_json(tasks, variants);
  CHECK(j["learnt_tasks"] == nlohmann::json({"copy", "listops"}));
  CHECK(j["tasks"]["parity"]["none"]["in_distribution"].get<double>() == Approx(0.89));
  CHECK(j["tasks"]["listops"]["rope"]["in_distribution"].is_null());
}

TEST_CASE("a suite whose every task has in-distribution scores learnt shows no second ranking", "[sequence]") {
  const std::vector<StudyVariant> variants = {suite_variant("rope", "rope", false)};
  PapersScore p = score("rope", 0.4);
  p.in_distribution = 0.95;
  const std::string md = suite_papers_markdown({{"copy", {p}}}, variants, "Protocol.", "");
  CHECK_THAT(md, Catch::Contains("| *mean reciprocal rank* | 1.00 |"));
  CHECK_THAT(md, !Catch::Contains("learnt tasks"));
  CHECK_THAT(md, !Catch::Contains("Not learnt"));
}

TEST_CASE("randomized positions' gain is also given over the learnt tasks, per encoding", "[sequence]") {
  const std::vector<StudyVariant> variants = {
      suite_variant("rope", "rope", false), suite_variant("rope-randomized", "rope", true),
      suite_variant("alibi", "alibi", false), suite_variant("alibi-randomized", "alibi", true),
      suite_variant("fire-randomized", "fire", true)};  // no plain twin: no pair
  const double nan = std::nan("");
  const std::vector<std::vector<double>> scores = {
      {0.5, 0.9, 0.6, 0.6, 0.7},   // copy, learnt: +40, +0
      {0.2, 0.1, 0.3, nan, 0.3},   // parity, not learnt: -10, alibi-randomized unscored
      {0.4, 0.6, 0.5, 0.8, nan}};  // sort, learnt: +20, +30
  const RandomizedGains g = randomized_gains({"copy", "parity", "sort"}, {true, false, true}, scores, variants);
  REQUIRE(g.pairs.size() == 2);
  CHECK(g.pairs[1].randomized == "alibi-randomized");
  CHECK(std::isnan(g.gain[1][1]));
  // Task means +0.20, -0.10, +0.25; the learnt ones +0.20 and +0.25.
  CHECK(g.mean == Approx((0.2 - 0.1 + 0.25) / 3));
  CHECK(g.learnt_mean == Approx(0.225));
  CHECK(g.pair_mean[0] == Approx((0.4 - 0.1 + 0.2) / 3));
  CHECK(g.pair_mean[1] == Approx(0.15));
  CHECK(g.pair_learnt_mean[0] == Approx(0.3));
  CHECK(g.gained == 3);
  CHECK(g.lost == 1);
  CHECK(g.equal == 1);
  const std::string md = randomized_gains_markdown(g);
  CHECK_THAT(md, Catch::Contains("| parity | -10.0 | – | -10.0 |"));
  CHECK_THAT(md, Catch::Contains("| *mean over learnt tasks* | +30.0 | +15.0 | +22.5 |"));
  CHECK_THAT(md, Catch::Contains("Over the 2 tasks some variant learnt in distribution: +22.5 points."));
  const nlohmann::json j = randomized_gains_json(g);
  CHECK(j["by_task"]["sort"]["alibi-randomized"].get<double>() == Approx(0.3));
  CHECK(j["by_task"]["parity"]["alibi-randomized"].is_null());
  CHECK(j["task_mean"]["parity"].get<double>() == Approx(-0.1));  // over the one pair it scored
  CHECK(j["task_mean"]["sort"].get<double>() == Approx(0.25));
  CHECK(j["pairs"][0]["learnt_mean"].get<double>() == Approx(0.3));
}

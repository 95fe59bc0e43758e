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
  REQUIRE(s.pairs.size() == 1);
  CHECK(s.pairs[0].plain == "rope");
  CHECK(s.pairs[0].randomized == "rope-randomized");
  REQUIRE(s.gains.size() == 2);
  CHECK(s.gains[0] == Approx(0.2));
  CHECK(s.gains[1] == Approx(-0.2));
  const std::string md = suite_papers_markdown(tasks, variants, "Protocol.");
  CHECK_THAT(md, Catch::Contains("| copy | 50.0 | **90.0** | 70.0 |"));
  CHECK_THAT(md, Catch::Contains("| sort | **60.0** | **60.0** | 40.0 |"));
  CHECK_THAT(md, Catch::Contains("| parity | – | **50.0** | – |"));
  CHECK_THAT(md, Catch::Contains("| *mean reciprocal rank* | 0.67 | 1.00 | 0.42 |"));
  CHECK_THAT(md, Catch::Contains("over the 2 (task, encoding) pairs scored: +0.0 points (1 gain, 1 lose, 0 equal"));
  const nlohmann::json j = suite_papers_json(tasks, variants);
  CHECK(j["variants"]["none"]["mean_reciprocal_rank"].get<double>() == Approx(1.0));
  CHECK(j["tasks"]["parity"].size() == 1);
}

TEST_CASE("a suite without papers' scores has no such section", "[sequence]") {
  const std::vector<StudyVariant> variants = {suite_variant("rope", "rope", false)};
  CHECK(suite_papers_markdown({{"listops", {}}}, variants, "Protocol.").empty());
  const SuitePapersSummary s = summarise_papers_scores({{"listops", {}}}, variants);
  CHECK(std::isnan(s.mean_reciprocal_rank[0]));
  CHECK(s.gains.empty());
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
  const std::string md = suite_papers_markdown(tasks, variants, "Protocol.");
  CHECK_THAT(md, Catch::Contains("| *mean reciprocal rank* | 0.83 | 0.67 |"));
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
  const std::string md = suite_papers_markdown({{"copy", {p}}}, variants, "Protocol.");
  CHECK_THAT(md, Catch::Contains("| *mean reciprocal rank* | 1.00 |"));
  CHECK_THAT(md, !Catch::Contains("learnt tasks"));
  CHECK_THAT(md, !Catch::Contains("Not learnt"));
}

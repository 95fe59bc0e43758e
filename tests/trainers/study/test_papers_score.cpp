// The papers' score of a sequence-task study (papers_score.h): per run the
// row's metric on its test_<L> cells averaged over the lengths, per variant
// the best and the mean of its seeds, reported as the papers do (transduction:
// token accuracy, best seed; completion: exact match, mean of the seeds);
// nothing for another objective.
#include <catch2/catch.hpp>

#include "trainers/study/papers_score.h"

using namespace rotor;

namespace {

SweepCell cell(const std::string& split, double token_accuracy, const std::string& scaling = "none") {
  SweepCell c = sweep_point(split, 0, scaling);
  c.available = true;
  c.scores.set("token_accuracy", token_accuracy);
  c.scores.set("exact_match", token_accuracy / 2);
  return c;
}

RunResult papers_run(const std::string& variant, uint64_t seed, std::vector<SweepCell> sweep) {
  RunResult r;
  r.run = StudyRun{variant, seed, variant + "-seed" + std::to_string(seed)};
  r.finished = true;
  r.sweep = std::move(sweep);
  return r;
}

}  // namespace

TEST_CASE("the papers' score averages a run's test lengths and keeps the best seed", "[sequence]") {
  StudyReport report;
  report.objective = &objective_spec(ObjectiveKind::transduction);
  report.variants = {VariantSummary{"rope"}, VariantSummary{"alibi"}};
  report.runs = {
      // test (in distribution) and a scaled cell are not the papers' lengths
      papers_run("rope", 1,
                 {cell("test", 1.0), cell("test_40", 0.6), cell("test_60", 0.5), cell("test_60", 0.9, "ntk")}),
      papers_run("rope", 2, {cell("test", 1.0), cell("test_40", 0.8), cell("test_60", 0.7)}),
      papers_run("alibi", 1, {cell("test", 0.9), cell("test_40", 0.5), cell("test_60", 0.5)}),
  };
  const std::vector<PapersScore> s = papers_scores(report);
  REQUIRE(s.size() == 2);
  CHECK(s[0].variant == "rope");
  CHECK(s[0].best == Approx(0.75));
  CHECK(s[0].mean == Approx((0.55 + 0.75) / 2));
  CHECK(s[0].reported == s[0].best);
  CHECK(s[0].seeds == 2);
  CHECK(s[0].lengths == 2);
  CHECK(s[1].best == Approx(0.5));
  CHECK(s[1].seeds == 1);
  CHECK_THAT(papers_score_markdown(report), Catch::Contains("| rope | 75.00 | 65.00 | 2 | 2 |"));
  report.objective = &objective_spec(ObjectiveKind::classify);
  CHECK(papers_scores(report).empty());
  CHECK(papers_score_markdown(report).empty());
}

TEST_CASE("a completion study's papers' score is the exact match averaged over lengths, mean of the seeds",
          "[sequence]") {
  StudyReport report;
  report.objective = &objective_spec(ObjectiveKind::completion);
  report.variants = {VariantSummary{"none"}};
  report.runs = {papers_run("none", 1, {cell("test", 1.0), cell("test_30", 0.6), cell("test_40", 0.2)}),
                 papers_run("none", 2, {cell("test", 1.0), cell("test_30", 1.0), cell("test_40", 0.6)})};
  const std::vector<PapersScore> s = papers_scores(report);
  REQUIRE(s.size() == 1);
  CHECK(s[0].best == Approx(0.4));  // exact match is half the token accuracy in these cells
  CHECK(s[0].mean == Approx(0.3));
  CHECK(s[0].reported == Approx(0.3));
  CHECK_THAT(papers_score_markdown(report), Catch::Contains("Kazemnejad et al. (2023)"));
}

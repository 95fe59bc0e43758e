// The papers' score of a sequence-task study (papers_score.h): per run the
// token accuracy of its test_<L> cells averaged over the lengths, per variant
// the best and the mean of its seeds; nothing for another objective.
#include <catch2/catch.hpp>

#include "trainers/study/papers_score.h"

using namespace rotor;

namespace {

SweepCell cell(const std::string& split, double token_accuracy, const std::string& scaling = "none") {
  SweepCell c;
  c.split = split;
  c.scaling = scaling;
  c.available = true;
  c.scores.set("token_accuracy", token_accuracy);
  return c;
}

RunResult run(const std::string& variant, uint64_t seed, std::vector<SweepCell> sweep) {
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
      run("rope", 1, {cell("test", 1.0), cell("test_40", 0.6), cell("test_60", 0.5), cell("test_60", 0.9, "ntk")}),
      run("rope", 2, {cell("test", 1.0), cell("test_40", 0.8), cell("test_60", 0.7)}),
      run("alibi", 1, {cell("test", 0.9), cell("test_40", 0.5), cell("test_60", 0.5)}),
  };
  const std::vector<PapersScore> s = papers_scores(report);
  REQUIRE(s.size() == 2);
  CHECK(s[0].variant == "rope");
  CHECK(s[0].best == Approx(0.75));
  CHECK(s[0].mean == Approx((0.55 + 0.75) / 2));
  CHECK(s[0].seeds == 2);
  CHECK(s[0].lengths == 2);
  CHECK(s[1].best == Approx(0.5));
  CHECK(s[1].seeds == 1);
  CHECK_THAT(papers_score_markdown(report), Catch::Contains("| rope | 75.00 | 65.00 | 2 | 2 |"));
  report.objective = &objective_spec(ObjectiveKind::classify);
  CHECK(papers_scores(report).empty());
  CHECK(papers_score_markdown(report).empty());
}

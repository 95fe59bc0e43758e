// Steps to a threshold (trainers/study/convergence.h) and the Student t
// distribution behind its intervals (student_t.h).
#include <catch2/catch.hpp>

#include <cmath>

#include "trainers/study/convergence.h"
#include "trainers/study/student_t.h"

using namespace rotor;

TEST_CASE("student t: critical values and p-values match the published table", "[study]") {
  // t_{0.975, df} from any table (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
  CHECK(student_t_critical(0.05, 1) == Approx(12.7062).epsilon(1e-5));
  CHECK(student_t_critical(0.05, 2) == Approx(4.3027).margin(6e-5));
  CHECK(student_t_critical(0.05, 3) == Approx(3.1824).margin(6e-5));
  CHECK(student_t_critical(0.05, 10) == Approx(2.2281).margin(6e-5));
  CHECK(student_t_critical(0.05, 29) == Approx(2.0452).margin(6e-5));
  CHECK(student_t_critical(0.01, 4) == Approx(4.6041).margin(6e-5));
  // df 2 has a closed form: P(|T| <= t) = t / sqrt(2 + t^2).
  for (double t : {0.1, 1.0, 3.0, 30.0})
    CHECK(student_t_central_probability(t, 2) == Approx(t / std::sqrt(2 + t * t)).epsilon(1e-12));
  // df 1 is Cauchy: P(|T| <= t) = 2 atan(t) / pi.
  CHECK(student_t_two_sided_p(1.0, 1) == Approx(0.5).epsilon(1e-12));
  CHECK(student_t_two_sided_p(0.0, 7) == Approx(1.0));
  CHECK(student_t_two_sided_p(-student_t_critical(0.05, 5), 5) == Approx(0.05).epsilon(1e-8));
  // Large df approaches the normal's 1.95996.
  CHECK(student_t_critical(0.05, 2000) == Approx(1.96115).epsilon(1e-4));
}

TEST_CASE("steps to threshold: the crossing is interpolated between evaluations", "[study]") {
  const std::vector<std::pair<int64_t, double>> loss{{50, 7.0}, {100, 6.0}, {150, 5.0}, {200, 4.0}};
  CHECK(crossing_step(loss, 5.5, true) == Approx(125.0));
  CHECK(crossing_step(loss, 6.0, true) == Approx(100.0));  // reached exactly at an evaluation
  CHECK(crossing_step(loss, 8.0, true) == Approx(50.0));   // already below at the first evaluation
  CHECK(std::isnan(crossing_step(loss, 3.9, true)));       // never reached
  const std::vector<std::pair<int64_t, double>> accuracy{{10, 0.2}, {20, 0.6}, {30, 0.5}, {40, 0.9}};
  CHECK(crossing_step(accuracy, 0.4, false) == Approx(15.0));
  CHECK(crossing_step(accuracy, 0.8, false) == Approx(30.0 + 10.0 * 0.3 / 0.4));  // the first crossing counts
}

TEST_CASE("steps to threshold: an evaluation that scored nothing (NaN) reaches no threshold", "[study][mlm]") {
  const double absent = std::nan("");
  // A masked LM whose validation selected no token: absent, not 0, and skipped.
  CHECK(std::isnan(crossing_step({{50, absent}, {100, absent}}, 5.0, true)));
  // Interpolated from the last evaluation that scored something.
  CHECK(crossing_step({{50, 7.0}, {100, absent}, {150, 5.0}}, 6.0, true) == Approx(100.0));
  CHECK(crossing_step({{50, absent}, {100, 6.0}}, 6.5, true) == Approx(100.0));
}

namespace {
RunResult curve_run(const std::string& variant, uint64_t seed, std::vector<std::pair<int64_t, double>> curve) {
  RunResult r;
  r.run = {variant, seed, variant + "-seed" + std::to_string(seed)};
  r.finished = true;
  r.val_curve = std::move(curve);
  return r;
}
// A loss curve falling linearly by 1 per 100 steps from 8 at step 0, `delay` steps late.
std::vector<std::pair<int64_t, double>> falling(double delay) {
  std::vector<std::pair<int64_t, double>> c;
  for (int64_t s = 50; s <= 600; s += 50) c.emplace_back(s, 8.0 - std::max(0.0, (s - delay) / 100.0));
  return c;
}
}  // namespace

TEST_CASE("steps to threshold: intervals, paired tests and censored runs", "[study]") {
  const std::vector<RunResult> runs{
      curve_run("rope", 1, falling(0)),      curve_run("rope", 2, falling(10)),
      curve_run("rope", 3, falling(20)),     curve_run("learned", 1, falling(100)),
      curve_run("learned", 2, falling(115)), curve_run("learned", 3, falling(125)),
      curve_run("none", 1, falling(0)),      curve_run("none", 2, falling(400)),  // seed 2 never reaches 5 by step 600
      curve_run("none", 3, falling(20))};
  const ThresholdConvergence c = threshold_convergence({"rope", "learned", "none"}, runs, 5.0, true, 0.05);
  REQUIRE(c.variants.size() == 3);
  const VariantConvergence& rope = c.variants[0];
  CHECK(rope.runs() == 3);
  REQUIRE(rope.steps.size() == 3);
  CHECK(rope.steps[1].second == Approx(310.0));
  CHECK(rope.mean == Approx(310.0));
  CHECK(rope.std == Approx(10.0));
  CHECK(rope.ci_high - rope.mean == Approx(4.302653 * 10.0 / std::sqrt(3.0)).epsilon(1e-5));
  CHECK(c.variants[2].runs() == 3);
  CHECK(c.variants[2].steps.size() == 2);  // censored: counted, not averaged
  REQUIRE(c.pairs.size() == 3);
  const ConvergencePair& rope_learned = c.pairs[0];
  CHECK(rope_learned.n_seeds == 3);
  CHECK(rope_learned.difference == Approx(-(100 + 105 + 105) / 3.0));
  CHECK(rope_learned.p < 0.001);
  CHECK(rope_learned.different);
  const ConvergencePair& rope_none = c.pairs[1];
  CHECK(rope_none.n_seeds == 2);  // seed 2 of none never reached it
  CHECK(rope_none.only_a == 1);
  CHECK(rope_none.only_b == 0);
  CHECK(rope_learned.only_a + rope_learned.only_b == 0);
  CHECK(rope_none.difference == Approx(0.0));
  CHECK(rope_none.p == Approx(1.0));
  CHECK_FALSE(rope_none.different);
  CHECK(c.pairs[2].p_holm >= c.pairs[2].p);
}

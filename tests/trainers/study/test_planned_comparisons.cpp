// Planned comparisons (spec `comparisons.against`): the key is checked at
// spec load; only each variant against the reference (and the order-control
// twins) is tested, so Holm corrects over a smaller family and a difference
// lost among every pair is resolved; the report names the family. Also the
// report's note that fewer than 3 seeds cannot sample the seed level.
#include <catch2/catch.hpp>

#include "engine/random.h"
#include "tests/trainers/study/study_fixture.h"
#include "trainers/study/study_report.h"
#include "trainers/study/study_spec.h"

using namespace rotor;
using Catch::Matchers::Contains;

namespace {

// Each document right with probability 1/2 (the same draw for every variant of a seed), then the first `lost`
// right ones made wrong: `lost` discordant documents per seed against a run with none lost.
std::vector<double> scores(uint64_t seed, int lost) {
  std::vector<double> out(400);
  const RandomKey key{11, seed, 0};
  for (size_t d = 0; d < out.size(); ++d) out[d] = key.uniform_double(d) < 0.5 ? 1.0 : 0.0;
  for (size_t d = 0; d < out.size() && lost > 0; ++d)
    if (out[d] == 1.0) {
      out[d] = 0.0;
      --lost;
    }
  return out;
}

// `none`, seven variants that predict as it does, and `sinusoidal`, slightly worse: 9 variants, 36 pairs.
CellOutcomes study_cell() {
  CellOutcomes cell{"test", 512, "none", {}};
  const std::vector<std::string> names{"none",   "rope", "rope-half", "t5_bias",   "alibi",
                                       "kerple", "fire", "learned",   "sinusoidal"};
  for (const std::string& name : names) {
    VariantOutcomes v{name, {}};
    for (uint64_t seed : {1, 2, 3}) v.scores_by_seed[seed] = scores(seed, name == "sinusoidal" ? 5 : 0);
    cell.variants.push_back(v);
  }
  return cell;
}

std::string spec_error(const std::string& body) {
  try {
    parse_study_spec(test::tiny_study_spec(test::fresh_dir("planned-spec-error"), body));
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("no error for spec:\n" << body);
  return "";
}

}  // namespace

TEST_CASE("planned comparisons: comparisons.against names a variant of the study, and without it every pair",
          "[study][planned]") {
  const std::string v = "seeds: [1]\nvariants: [rope, none]\n";
  CHECK(parse_study_spec(test::tiny_study_spec(test::fresh_dir("planned-spec"), v)).comparisons_against.empty());
  const StudySpec spec =
      parse_study_spec(test::tiny_study_spec(test::fresh_dir("planned-spec"), v + "comparisons: {against: none}\n"));
  CHECK(spec.comparisons_against == "none");
  CHECK_THAT(
      spec_error(v + "comparisons: {against: nope}\n"),
      Contains("study.yaml:4: comparisons.against: 'nope' is not a variant of the study (variants: none, rope)"));
  CHECK_THAT(spec_error(v + "comparisons: {versus: none}\n"),
             Contains("study.yaml:4: unknown key 'versus' in comparisons"));
  CHECK_THAT(spec_error(v + "comparisons: none\n"), Contains("study.yaml:4: comparisons: expected a mapping"));
  CHECK_THAT(spec_error(v + "comparisons: {against: [none, rope]}\n"),
             Contains("comparisons.against: expected a single value"));
}

TEST_CASE("planned comparisons: a difference lost among 36 pairs is resolved in the family of 8 against none",
          "[study][planned]") {
  // sinusoidal loses 5 documents per seed to none and gains none: raw p 0.005 either way.
  StatisticsOptions options;
  options.replicates = 2000;
  const CellStatistics all = cell_statistics(study_cell(), options);
  CHECK(all.pairs.size() == 36);
  const PairStatistics* every = find_pair(all, "none", "sinusoidal");
  REQUIRE(every != nullptr);
  CHECK(every->p == Approx(0.005));
  CHECK(every->p_holm == Approx(36 * 0.005));
  CHECK_FALSE(every->different);

  for (const VariantOutcomes& v : study_cell().variants)
    if (v.name != "none") options.planned.emplace_back("none", v.name);
  const CellStatistics planned = cell_statistics(study_cell(), options);
  CHECK(planned.pairs.size() == 8);
  for (const PairStatistics& p : planned.pairs) CHECK((p.a == "none" || p.b == "none"));
  const PairStatistics* one = find_pair(planned, "none", "sinusoidal");
  REQUIRE(one != nullptr);
  CHECK(one->p == every->p);
  CHECK(one->p_holm == Approx(8 * 0.005));
  CHECK(one->different);
  CHECK(find_pair(planned, "rope", "sinusoidal") == nullptr);
}

// A sweep cell's units as the objective's row counts them: (numerator,
// denominator) pairs whose sums give the row's evidence metric, whatever the
// objective, and the statistics' direction from that metric's declaration.
#include <catch2/catch.hpp>

#include <numeric>

#include "trainers/study/unit_evidence.h"

using namespace rotor;

namespace {

double ratio(const UnitScores& u) {
  return std::accumulate(u.numerators.begin(), u.numerators.end(), 0.0) /
         std::accumulate(u.denominators.begin(), u.denominators.end(), 0.0);
}

}  // namespace

TEST_CASE("a document's unit is right or wrong over 1: the units' ratio is the cell's accuracy", "[study]") {
  SweepCell c;
  c.predictions = {1, 0, 2, 2};
  c.labels = {1, 1, 2, 0};
  c.scores = {{"accuracy", 0.5}};
  REQUIRE(has_units(c, EvidenceUnit::document));
  const UnitScores u = unit_scores(c, EvidenceUnit::document);
  CHECK(u.numerators == std::vector<double>{1, 0, 1, 0});
  CHECK(u.denominators == std::vector<double>{1, 1, 1, 1});
  CHECK(u.identity == std::vector<double>{1, 1, 2, 0});  // the labels
  CHECK(ratio(u) == c.scores.get("accuracy"));
  CHECK_FALSE(has_units(c, EvidenceUnit::window));
  CHECK_FALSE(evidence_declaration(objective_spec(ObjectiveKind::classify)).lower_is_better);
}

TEST_CASE("a window's unit is its nats over its tokens: the units' ratio is the cell's loss", "[study]") {
  SweepCell c;
  c.window_nats = {6.0, 3.0};
  c.window_tokens = {4, 2};
  REQUIRE(has_units(c, EvidenceUnit::window));
  const UnitScores u = unit_scores(c, EvidenceUnit::window);
  CHECK(u.numerators == c.window_nats);
  CHECK(u.denominators == std::vector<double>{4, 2});
  CHECK(ratio(u) == 1.5);
  CHECK(evidence_declaration(objective_spec(ObjectiveKind::clm)).lower_is_better);
  CHECK_THAT(units_differ(EvidenceUnit::window, c), Catch::Contains("windows at 0 tokens differ"));
}

TEST_CASE("a sample's units are stored in its sweep cell and read back", "[study]") {
  SweepCell c;
  c.split = "test";
  c.length = 32;
  c.available = true;
  c.scores = {{"token_accuracy", 0.7}, {"loss", 0.9}};
  c.sample_numerators = {3, 4};
  c.sample_denominators = {5, 5};
  const SweepCell back = nlohmann::json(c).get<SweepCell>();
  REQUIRE(has_units(back, EvidenceUnit::sample));
  const UnitScores u = unit_scores(back, EvidenceUnit::sample);
  CHECK(u.numerators == std::vector<double>{3, 4});
  CHECK(u.denominators == std::vector<double>{5, 5});
  CHECK(ratio(u) == 0.7);
  CHECK_FALSE(has_units(SweepCell{}, EvidenceUnit::sample));
  CHECK_FALSE(nlohmann::json(SweepCell{}).contains("sample_numerators"));
}

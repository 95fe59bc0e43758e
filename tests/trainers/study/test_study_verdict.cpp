// The one-line verdict of a split, on hand-built cell statistics: merged
// lengths, p bands, tied groups listed once or per length, the plain "all
// tied" sentence, scaled cells, a variant below (or above) every other one
// said once; and the position-usage findings, each said once for all the
// variants it holds for.
#include <tuple>

#include <catch2/catch.hpp>

#include "trainers/study/study_verdict.h"

using namespace rotor;

namespace {

// Variants with their tiers, in spec order.
CellStatistics verdict_cell(int64_t length, const std::vector<std::pair<std::string, int64_t>>& tiers,
                            const std::string& scaling = "none") {
  CellStatistics c;
  c.split = "test";
  c.length = length;
  c.scaling = scaling;
  for (const auto& [name, tier] : tiers) {
    VariantStatistics v;
    v.name = name;
    v.n_seeds = 3;
    v.tier = tier;
    c.variants.push_back(v);
  }
  return c;
}

// a - b with its Holm-adjusted p; significant below 0.05, its interval on the side of the difference.
void add_pair(CellStatistics& c, const std::string& a, const std::string& b, double difference, double p_holm) {
  PairStatistics p;
  p.a = a;
  p.b = b;
  p.n_seeds = 3;
  p.difference = difference;
  p.ci_low = difference - 0.01;
  p.ci_high = difference + 0.01;
  p.p = p.p_holm = p_holm;
  p.different = p_holm < 0.05;
  c.pairs.push_back(p);
}

}  // namespace

TEST_CASE("verdict: a pair merged across lengths with the band of its largest p, a group tied everywhere",
          "[study][verdict]") {
  CellStatistics at512 = verdict_cell(512, {{"rope", 1}, {"sinusoidal", 2}, {"t5_bias", 1}, {"alibi", 1}});
  add_pair(at512, "rope", "sinusoidal", 0.2, 0.004);
  add_pair(at512, "rope", "t5_bias", 0.01, 0.6);
  CellStatistics at1024 = verdict_cell(1024, {{"rope", 1}, {"sinusoidal", 2}, {"t5_bias", 1}, {"alibi", 1}});
  add_pair(at1024, "rope", "sinusoidal", 0.3, 0.0002);
  add_pair(at1024, "rope", "alibi", 0.0, 1.0);
  CHECK(split_verdict({at512, at1024}, 0.05) ==
        "rope > sinusoidal at 512 and 1024 tokens (p < 0.01); rope, t5_bias, alibi tied");
}

TEST_CASE("verdict: the leader is read from the interval, so b can beat a", "[study][verdict]") {
  CellStatistics c = verdict_cell(64, {{"none", 2}, {"rope", 1}});
  add_pair(c, "none", "rope", -0.3, 0.0004);
  CHECK(split_verdict({c}, 0.05) == "rope > none at 64 tokens (p < 0.001)");
  c.pairs[0].p_holm = 0.03;
  CHECK(split_verdict({c}, 0.05) == "rope > none at 64 tokens (p < 0.05)");
}

TEST_CASE("verdict: tied groups that change with the length are listed per length", "[study][verdict]") {
  CellStatistics at64 = verdict_cell(64, {{"a", 1}, {"b", 1}, {"c", 2}});
  add_pair(at64, "a", "c", 0.2, 0.001);
  CellStatistics at128 = verdict_cell(128, {{"a", 1}, {"b", 2}, {"c", 2}});
  add_pair(at128, "a", "b", 0.2, 0.02);
  add_pair(at128, "a", "c", 0.2, 0.02);
  CellStatistics at256 = verdict_cell(256, {{"a", 1}, {"b", 2}, {"c", 2}});
  add_pair(at256, "a", "b", 0.2, 0.03);
  add_pair(at256, "a", "c", 0.2, 0.0001);
  CHECK(split_verdict({at64, at128, at256}, 0.05) ==
        "a above every other variant at 128 and 256 tokens (p < 0.05); a > c at 64 tokens (p < 0.01); "
        "a, b tied at 64 tokens; b, c tied at 128 and 256 tokens");
}

TEST_CASE("verdict: nothing significant anywhere is said plainly", "[study][verdict]") {
  CellStatistics at64 = verdict_cell(64, {{"a", 1}, {"b", 1}});
  add_pair(at64, "a", "b", 0.01, 0.2);
  CellStatistics at128 = verdict_cell(128, {{"a", 1}, {"b", 1}});
  add_pair(at128, "a", "b", -0.01, 0.7);
  CHECK(split_verdict({at64, at128}, 0.05) ==
        "no difference the data can resolve: all variants tied (Holm-corrected p >= 0.05)");
  CHECK(split_verdict({verdict_cell(64, {{"a", 1}})}, 0.05) ==
        "nothing to compare: fewer than two variants with finished runs");
  CHECK(split_verdict({}, 0.05) == "nothing to compare: fewer than two variants with finished runs");
}

TEST_CASE("verdict: a scaled cell is labelled with its scaling", "[study][verdict]") {
  CellStatistics plain = verdict_cell(1024, {{"rope", 1}, {"alibi", 2}});
  add_pair(plain, "rope", "alibi", 0.1, 0.002);
  CellStatistics scaled = verdict_cell(1024, {{"rope", 1}, {"alibi", 2}}, "ntk");
  add_pair(scaled, "rope", "alibi", 0.1, 0.002);
  CHECK(split_verdict({plain, scaled}, 0.05) == "rope > alibi at 1024 and 1024 (ntk) tokens (p < 0.01)");
}

TEST_CASE("verdict: one leader over several variants at the same cells and band is one clause", "[study][verdict]") {
  // xpos, tied with everyone, keeps rope from being above and learned from being below every other variant.
  CellStatistics c = verdict_cell(64, {{"none", 2}, {"alibi", 2}, {"rope", 1}, {"learned", 3}, {"xpos", 1}});
  add_pair(c, "none", "rope", -0.3, 0.0004);
  add_pair(c, "alibi", "rope", -0.3, 0.0002);
  add_pair(c, "learned", "rope", -0.5, 0.003);
  add_pair(c, "none", "learned", 0.2, 0.0001);
  add_pair(c, "alibi", "learned", 0.2, 0.0001);
  add_pair(c, "xpos", "rope", 0.0, 0.5);
  add_pair(c, "xpos", "learned", 0.0, 0.5);
  // none and alibi beat the same variant at the same cells and band: one clause with both leaders.
  CHECK(split_verdict({c}, 0.05) ==
        "rope > none, alibi at 64 tokens (p < 0.001); rope > learned at 64 tokens (p < 0.01); "
        "none, alibi > learned at 64 tokens (p < 0.001); rope, xpos tied; none, alibi tied");
}

TEST_CASE("verdict: a tier with a resolved pair inside is not called tied", "[study][verdict]") {
  // learned leads; rope and sinusoidal are each not resolved from it, but rope is resolved above sinusoidal.
  CellStatistics c = verdict_cell(121, {{"rope", 1}, {"sinusoidal", 1}, {"learned", 1}, {"none", 2}});
  for (VariantStatistics& v : c.variants) v.mean = v.name == "learned" ? 0.65 : v.name == "rope" ? 0.61 : 0.5;
  const std::vector<std::tuple<std::string, std::string, double, double>> pairs{
      {"rope", "sinusoidal", 0.04, 0.03}, {"learned", "rope", 0.04, 0.4}, {"learned", "sinusoidal", 0.15, 0.06},
      {"learned", "none", 0.15, 0.001},   {"rope", "none", 0.11, 0.002},  {"sinusoidal", "none", 0.0, 1.0}};
  for (const auto& [a, b, difference, p_holm] : pairs) add_pair(c, a, b, difference, p_holm);
  CHECK(split_verdict({c}, 0.05) ==
        "rope > sinusoidal at 121 tokens (p < 0.05); learned, rope > none at 121 tokens (p < 0.01); "
        "rope, sinusoidal not resolved from learned");
  // The same tier without the resolved pair is a tied group.
  c.pairs.front().p_holm = 0.2;
  c.pairs.front().different = false;
  CHECK(split_verdict({c}, 0.05) == "learned, rope > none at 121 tokens (p < 0.01); rope, sinusoidal, learned tied");
}

TEST_CASE("verdict: a variant below every other one is said once, merged across lengths", "[study][verdict]") {
  const std::vector<std::string> others{"rope", "t5_bias", "alibi", "learned", "none"};
  std::vector<CellStatistics> cells;
  for (int64_t length : {512, 1024}) {
    CellStatistics c = verdict_cell(
        length, {{"rope", 1}, {"sinusoidal", 2}, {"t5_bias", 1}, {"alibi", 1}, {"learned", 1}, {"none", 1}});
    for (const std::string& o : others) add_pair(c, o, "sinusoidal", 0.1, length == 512 ? 0.03 : 0.004);
    cells.push_back(c);
  }
  CHECK(split_verdict(cells, 0.05) ==
        "sinusoidal below every other variant at 512 and 1024 tokens (p < 0.05); "
        "rope, t5_bias, alibi, learned, none tied");
  // One more variant that sinusoidal is not resolved from: the pairs are listed as before.
  cells[1].variants.push_back(cells[1].variants.back());
  cells[1].variants.back().name = "fire";
  CHECK_THAT(split_verdict(cells, 0.05),
             Catch::StartsWith("sinusoidal below every other variant at 512 tokens (p < 0.05); rope, t5_bias, alibi, "
                               "learned, none > sinusoidal at 1024 tokens (p < 0.01)"));
}

TEST_CASE("verdict: a language model's best variant has a lower loss than every other one", "[study][verdict]") {
  CellStatistics c = verdict_cell(1024, {{"alibi", 1}, {"rope", 2}, {"none", 2}});
  c.lower_is_better = true;
  add_pair(c, "alibi", "rope", -0.4, 0.0001);
  add_pair(c, "alibi", "none", -0.5, 0.0001);
  add_pair(c, "rope", "none", -0.01, 0.4);
  CHECK(split_verdict({c}, 0.05) ==
        "alibi lower loss than every other variant at 1024 tokens (p < 0.001); rope, none tied");
}

TEST_CASE("verdict: position usage is said once per finding, identical predictions first", "[study][verdict]") {
  std::vector<PositionUsage> usage(4);
  for (size_t i = 0; i < usage.size(); ++i)
    usage[i].variant = std::vector<std::string>{"rope", "t5_bias", "alibi", "none"}[i];
  usage[0].differing_per_seed = {40, 38};
  usage[1].differing_per_seed = {0, 2};  // the same predictions as none on one seed
  usage[1].indistinguishable_from_none = usage[2].indistinguishable_from_none = true;
  usage[2].differing_per_seed = {3, 5};
  for (PositionUsage& u : usage) u.measured_runs = 2;
  usage[0].near_uniform_runs = usage[3].near_uniform_runs = 2;
  usage[1].near_uniform_runs = 1;
  const std::vector<std::string> lines = usage_verdicts(usage, "none");
  REQUIRE(lines.size() == 3);
  CHECK_THAT(lines[0], Catch::StartsWith("t5_bias: identical test predictions to `none` on 1 of 2 seeds"));
  CHECK_THAT(lines[1], Catch::StartsWith("cannot be told apart from `none` (no position) at any evaluated length: "
                                         "t5_bias, alibi: "));
  CHECK_THAT(lines[2], Catch::Contains("in 2 of 2 runs of rope, none; 1 of 2 runs of t5_bias: "));
  CHECK(usage_verdicts({usage[0]}, "none").size() == 1);  // only its attention
}

// The one-line verdict of a split, on hand-built cell statistics: merged
// lengths, p bands, tied groups listed once or per length, the plain "all
// tied" sentence and scaled cells.
#include <catch2/catch.hpp>

#include "trainers/study/study_verdict.h"

using namespace rotor;

namespace {

// Variants with their tiers, in spec order.
CellStatistics cell(int64_t length, const std::vector<std::pair<std::string, int64_t>>& tiers,
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
  CellStatistics at512 = cell(512, {{"rope", 1}, {"sinusoidal", 2}, {"t5_bias", 1}, {"alibi", 1}});
  add_pair(at512, "rope", "sinusoidal", 0.2, 0.004);
  add_pair(at512, "rope", "t5_bias", 0.01, 0.6);
  CellStatistics at1024 = cell(1024, {{"rope", 1}, {"sinusoidal", 2}, {"t5_bias", 1}, {"alibi", 1}});
  add_pair(at1024, "rope", "sinusoidal", 0.3, 0.0002);
  add_pair(at1024, "rope", "alibi", 0.0, 1.0);
  CHECK(split_verdict({at512, at1024}, 0.05) ==
        "rope > sinusoidal at 512 and 1024 tokens (p < 0.01); rope, t5_bias, alibi tied");
}

TEST_CASE("verdict: the leader is read from the interval, so b can beat a", "[study][verdict]") {
  CellStatistics c = cell(64, {{"none", 2}, {"rope", 1}});
  add_pair(c, "none", "rope", -0.3, 0.0004);
  CHECK(split_verdict({c}, 0.05) == "rope > none at 64 tokens (p < 0.001)");
  c.pairs[0].p_holm = 0.03;
  CHECK(split_verdict({c}, 0.05) == "rope > none at 64 tokens (p < 0.05)");
}

TEST_CASE("verdict: tied groups that change with the length are listed per length", "[study][verdict]") {
  CellStatistics at64 = cell(64, {{"a", 1}, {"b", 1}, {"c", 2}});
  add_pair(at64, "a", "c", 0.2, 0.001);
  CellStatistics at128 = cell(128, {{"a", 1}, {"b", 2}, {"c", 2}});
  add_pair(at128, "a", "b", 0.2, 0.02);
  add_pair(at128, "a", "c", 0.2, 0.02);
  CellStatistics at256 = cell(256, {{"a", 1}, {"b", 2}, {"c", 2}});
  add_pair(at256, "a", "b", 0.2, 0.03);
  add_pair(at256, "a", "c", 0.2, 0.0001);
  CHECK(split_verdict({at64, at128, at256}, 0.05) ==
        "a > c at 64, 128 and 256 tokens (p < 0.05); a > b at 128 and 256 tokens (p < 0.05); "
        "a, b tied at 64 tokens; b, c tied at 128 and 256 tokens");
}

TEST_CASE("verdict: nothing significant anywhere is said plainly", "[study][verdict]") {
  CellStatistics at64 = cell(64, {{"a", 1}, {"b", 1}});
  add_pair(at64, "a", "b", 0.01, 0.2);
  CellStatistics at128 = cell(128, {{"a", 1}, {"b", 1}});
  add_pair(at128, "a", "b", -0.01, 0.7);
  CHECK(split_verdict({at64, at128}, 0.05) ==
        "no difference the data can resolve: all variants tied (Holm-corrected p >= 0.05)");
  CHECK(split_verdict({cell(64, {{"a", 1}})}, 0.05) ==
        "nothing to compare: fewer than two variants with finished runs");
  CHECK(split_verdict({}, 0.05) == "nothing to compare: fewer than two variants with finished runs");
}

TEST_CASE("verdict: a scaled cell is labelled with its scaling", "[study][verdict]") {
  CellStatistics plain = cell(1024, {{"rope", 1}, {"alibi", 2}});
  add_pair(plain, "rope", "alibi", 0.1, 0.002);
  CellStatistics scaled = cell(1024, {{"rope", 1}, {"alibi", 2}}, "ntk");
  add_pair(scaled, "rope", "alibi", 0.1, 0.002);
  CHECK(split_verdict({plain, scaled}, 0.05) == "rope > alibi at 1024 and 1024 (ntk) tokens (p < 0.01)");
}

TEST_CASE("verdict: one leader over several variants at the same cells and band is one clause", "[study][verdict]") {
  CellStatistics c = cell(64, {{"none", 2}, {"alibi", 2}, {"rope", 1}, {"learned", 3}});
  add_pair(c, "none", "rope", -0.3, 0.0004);
  add_pair(c, "alibi", "rope", -0.3, 0.0002);
  add_pair(c, "learned", "rope", -0.5, 0.003);
  add_pair(c, "none", "learned", 0.2, 0.0001);
  add_pair(c, "alibi", "learned", 0.2, 0.0001);
  CHECK(split_verdict({c}, 0.05) ==
        "rope > none, alibi at 64 tokens (p < 0.001); rope > learned at 64 tokens (p < 0.01); "
        "none > learned at 64 tokens (p < 0.001); alibi > learned at 64 tokens (p < 0.001); none, alibi tied");
}

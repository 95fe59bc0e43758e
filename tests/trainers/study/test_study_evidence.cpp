// The study's evidence from per-document predictions: which variant is the
// no-position reference, the order control's twins and the sign of their
// gap, predictions that differ from the reference, flags for variants that
// cannot be told from it and for attention that stayed close to uniform;
// planned comparisons against one reference, the few-seeds note.
#include <catch2/catch.hpp>

#include "trainers/config/config.h"
#include "trainers/study/study_evidence.h"
#include "trainers/study/study_report.h"

using namespace rotor;

namespace {

constexpr int kDocs = 400;

StudyVariant evidence_variant(const std::string& name, const std::string& position, bool shuffled) {
  StudyVariant v;
  v.name = name;
  v.config.model.position.type = position;
  v.config.data.shuffle_tokens = shuffled;
  return v;
}

// A finished run whose prediction is right on the first `correct` documents
// (labels all 1, a wrong prediction says 0), swept at 64 tokens on test.
RunResult run(const std::string& evidence_variant, uint64_t seed, int correct, double entropy) {
  RunResult r;
  r.run = {evidence_variant, seed, evidence_variant + "-seed" + std::to_string(seed)};
  r.dir = "/runs/" + r.run.id;
  r.finished = true;
  SweepCell c;
  c.split = "test";
  c.length = 64;
  c.available = true;
  c.labels.assign(kDocs, 1);
  for (int d = 0; d < kDocs; ++d) c.predictions.push_back(d < correct ? 1 : 0);
  r.sweep.push_back(c);
  r.attention.available = true;
  r.attention.layer_entropy = {entropy, entropy};
  return r;
}

}  // namespace

TEST_CASE("evidence: a planted difference, its order control and the no-position reference", "[study]") {
  const std::vector<StudyVariant> variants{evidence_variant("rope", "rope", false),
                                           evidence_variant("nopos", "none", false),
                                           evidence_variant("rope-shuffled", "rope", true)};
  std::vector<RunResult> runs;
  for (uint64_t seed : {1, 2, 3}) {
    runs.push_back(run("rope", seed, 360 + static_cast<int>(seed), 0.6));  // ~90%
    runs.push_back(run("nopos", seed, 200, 0.995));                        // 50%, attention uniform
    runs.push_back(run("rope-shuffled", seed, 200, 0.7));                  // as nopos: order carried it
  }
  StatisticsOptions options;
  options.replicates = 1000;
  const StudyEvidence e = gather_evidence(variants, runs, options, "");

  CHECK(e.reference == "nopos");
  REQUIRE(e.cells.size() == 1);
  REQUIRE(e.verdicts.size() == 1);
  CHECK(e.verdicts[0] == "test: rope above every other variant at 64 tokens (p < 0.01); nopos, rope-shuffled tied");

  REQUIRE(e.order.size() == 1);  // rope and its shuffled twin; nopos has none
  CHECK(e.order[0].variant == "rope");
  CHECK(e.order[0].shuffled == "rope-shuffled");
  CHECK(e.order[0].gap.difference == Approx((362.0 - 200.0) / kDocs));  // oriented as order minus shuffled
  CHECK(e.order[0].gap.ci_low > 0.0);
  CHECK(e.order[0].gap.different);
  CHECK_THAT(e.order_verdict, Catch::Contains("word order matters") && Catch::Contains("rope +40.5 points"));

  REQUIRE(e.usage.size() == 3);
  CHECK(e.usage[0].differs_from_none == Approx((161 + 162 + 163) / 3.0));  // documents 200..360+seed
  CHECK(e.usage[0].documents == kDocs);
  CHECK_FALSE(e.usage[0].indistinguishable_from_none);
  CHECK(e.usage[1].differs_from_none == -1.0);  // the reference itself
  CHECK(e.usage[2].differs_from_none == 0.0);
  CHECK(e.usage[2].indistinguishable_from_none);
  CHECK(e.usage[1].near_uniform_runs == 3);
  CHECK(e.usage[0].near_uniform_runs == 0);
  CHECK(e.usage[0].layer_entropy == std::vector<double>{0.6, 0.6});
}

TEST_CASE("evidence: a variant whose encoding and pooling cannot see a reversal is named in the report", "[study]") {
  // Symmetric ALiBi with mean pooling: every run looks like it learnt nothing about order, whatever the budget.
  std::vector<StudyVariant> variants{evidence_variant("rope", "rope", false), evidence_variant("nopos", "none", false),
                                     evidence_variant("alibi", "alibi", false),
                                     evidence_variant("alibi-cls", "alibi", false)};
  variants[3].config.model.pooling = Pooling::cls;
  std::vector<RunResult> runs;
  for (uint64_t seed : {1, 2})
    for (const StudyVariant& v : variants) runs.push_back(run(v.name, seed, 300, 0.8));
  StatisticsOptions options;
  options.replicates = 200;
  StudyReport report;
  report.evidence = gather_evidence(variants, runs, options, "");
  const StudyEvidence& e = report.evidence;
  REQUIRE(e.usage.size() == 4);
  CHECK(e.usage[0].order_blind.empty());
  CHECK(e.usage[1].order_blind.empty());  // the no-position reference is blind by design
  CHECK_THAT(e.usage[2].order_blind, Catch::Contains("model.position.type alibi with model.pooling mean"));
  CHECK(e.usage[3].order_blind.empty());  // the CLS slot sees direction
  const std::string markdown = evidence_markdown(report);
  CHECK_THAT(markdown, Catch::Contains("cannot see word order") &&
                           Catch::Contains("- **alibi**: model.position.type alibi with model.pooling mean cannot "
                                           "tell a sequence from its reverse") &&
                           !Catch::Contains("- **alibi-cls**: model.position"));
}

TEST_CASE("attention is near uniform only when every layer is", "[study]") {
  AttentionUsage u;
  u.available = true;
  u.layer_entropy = {0.99, 0.985};
  CHECK(u.near_uniform());
  u.layer_entropy = {0.6, 0.99};  // one layer attends: the model can use positions
  CHECK_FALSE(u.near_uniform());
  u.available = false;
  u.layer_entropy = {0.99, 0.99};
  CHECK_FALSE(u.near_uniform());
}

TEST_CASE("evidence: an order control within noise says the task cannot rank encodings", "[study]") {
  const std::vector<StudyVariant> variants{evidence_variant("rope", "rope", false),
                                           evidence_variant("rope-shuffled", "rope", true)};
  std::vector<RunResult> runs;
  for (uint64_t seed : {1, 2}) {
    runs.push_back(run("rope", seed, 300, 0.5));
    runs.push_back(run("rope-shuffled", seed, 300 - static_cast<int>(seed), 0.5));
  }
  const StudyEvidence e = gather_evidence(variants, runs, StatisticsOptions{}, "");
  CHECK(e.reference.empty());
  REQUIRE(e.order.size() == 1);
  CHECK_FALSE(e.order[0].gap.different);
  CHECK_THAT(e.order_verdict, Catch::Contains("cannot rank position encodings"));
  CHECK(e.usage[0].differs_from_none == -1.0);
}

TEST_CASE("evidence: runs scored on other documents are refused", "[study]") {
  const std::vector<StudyVariant> variants{evidence_variant("rope", "rope", false),
                                           evidence_variant("alibi", "alibi", false)};
  std::vector<RunResult> runs{run("rope", 1, 300, 0.5), run("alibi", 1, 300, 0.5)};
  runs[1].sweep[0].labels[7] = 0;
  CHECK_THROWS_WITH(gather_evidence(variants, runs, StatisticsOptions{}, ""),
                    Catch::Contains("/runs/alibi-seed1/length_sweep.json") && Catch::Contains("labels differ"));
}

TEST_CASE("evidence: planned comparisons test each variant against one reference, the order control kept", "[study]") {
  const std::vector<StudyVariant> variants{
      evidence_variant("rope", "rope", false), evidence_variant("alibi", "alibi", false),
      evidence_variant("nopos", "none", false), evidence_variant("rope-shuffled", "rope", true)};
  std::vector<RunResult> runs;
  for (uint64_t seed : {1, 2, 3}) {
    runs.push_back(run("rope", seed, 330 + static_cast<int>(seed), 0.6));
    runs.push_back(run("alibi", seed, 300, 0.6));
    runs.push_back(run("nopos", seed, 290 - static_cast<int>(seed), 0.6));
    runs.push_back(run("rope-shuffled", seed, 295, 0.6));
  }
  StatisticsOptions options;
  options.replicates = 1000;
  const StudyEvidence all = gather_evidence(variants, runs, options, "");
  const StudyEvidence planned = gather_evidence(variants, runs, options, "nopos");
  REQUIRE(all.cells[0].pairs.size() == 6);
  const std::vector<PairStatistics>& pairs = planned.cells[0].pairs;
  REQUIRE(pairs.size() == 4);  // rope, alibi, rope-shuffled against nopos; rope against its shuffled twin
  std::vector<double> p;
  for (const PairStatistics& q : pairs) {
    CHECK((q.a == "nopos" || q.b == "nopos" || (q.a == "rope" && q.b == "rope-shuffled")));
    const PairStatistics* same = find_pair(all.cells[0], q.a, q.b);
    REQUIRE(same != nullptr);
    CHECK(q.p == same->p);  // the same bootstrap draws: only the Holm family differs
    CHECK(q.p_holm <= same->p_holm);
    p.push_back(q.p);
  }
  const std::vector<double> holm = holm_adjust(p);
  for (size_t i = 0; i < pairs.size(); ++i) CHECK(pairs[i].p_holm == holm[i]);
  REQUIRE(planned.order.size() == 1);

  StudyReport report;
  report.evidence = planned;
  CHECK_THAT(evidence_markdown(report),
             Catch::Contains("Holm-corrected over the planned comparisons of that split and length: each variant "
                             "against `nopos` (spec `comparisons.against`)"));
  report.evidence = all;
  CHECK_THAT(evidence_markdown(report), Catch::Contains("Holm-corrected over the pairs of that split and length"));
}

TEST_CASE("evidence: the report says when fewer than 3 seeds leave the seed level of the bootstrap unsampled",
          "[study]") {
  const std::vector<StudyVariant> variants{evidence_variant("rope", "rope", false),
                                           evidence_variant("nopos", "none", false)};
  StudyReport report;
  std::vector<RunResult> runs;
  for (uint64_t seed : {1, 2}) {
    runs.push_back(run("rope", seed, 330, 0.6));
    runs.push_back(run("nopos", seed, 290, 0.6));
  }
  report.evidence = gather_evidence(variants, runs, StatisticsOptions{}, "");
  CHECK_THAT(evidence_markdown(report), Catch::Contains("**Few seeds**: a variant here has 2 finished seeds. The seed "
                                                        "level of the bootstrap can only redraw the seeds at hand"));
  runs.push_back(run("rope", 3, 330, 0.6));
  runs.push_back(run("nopos", 3, 290, 0.6));
  report.evidence = gather_evidence(variants, runs, StatisticsOptions{}, "");
  CHECK_THAT(evidence_markdown(report), !Catch::Contains("Few seeds"));
}

TEST_CASE("evidence: predictions identical to the no-position variant's are counted per seed and said plainly",
          "[study]") {
  const std::vector<StudyVariant> variants{evidence_variant("t5_bias", "t5_bias", false),
                                           evidence_variant("nopos", "none", false)};
  std::vector<RunResult> runs{run("t5_bias", 1, 200, 0.6), run("nopos", 1, 200, 0.6), run("t5_bias", 2, 202, 0.6),
                              run("nopos", 2, 200, 0.6)};
  const StudyEvidence e = gather_evidence(variants, runs, StatisticsOptions{}, "");
  CHECK(e.usage[0].differing_per_seed == std::vector<int64_t>{0, 2});
  CHECK(e.usage[0].differs_from_none == 1.0);
  REQUIRE_FALSE(e.usage_verdicts.empty());
  CHECK_THAT(e.usage_verdicts[0], Catch::StartsWith("t5_bias: identical test predictions to `nopos` on 1 of 2 seeds"));
  StudyReport report;
  report.evidence = e;
  CHECK_THAT(evidence_markdown(report),
             Catch::Contains("| 0, 2 of 400 |") && Catch::Contains("- t5_bias: identical test predictions to `nopos`"));
}

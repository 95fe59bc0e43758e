// The study's evidence from per-document predictions: which variant is the
// no-position reference, the order control's twins and the sign of their
// gap, predictions that differ from the reference, flags for variants that
// cannot be told from it and for attention that stayed close to uniform.
#include <catch2/catch.hpp>

#include "trainers/config/config.h"
#include "trainers/study/study_evidence.h"
#include "trainers/study/study_report.h"

using namespace rotor;

namespace {

constexpr int kDocs = 400;

StudyVariant variant(const std::string& name, const std::string& position, bool shuffled) {
  StudyVariant v;
  v.name = name;
  v.config.model.position.type = position;
  v.config.data.shuffle_tokens = shuffled;
  return v;
}

// A finished run whose prediction is right on the first `correct` documents
// (labels all 1, a wrong prediction says 0), swept at 64 tokens on test.
RunResult run(const std::string& variant, uint64_t seed, int correct, double entropy) {
  RunResult r;
  r.run = {variant, seed, variant + "-seed" + std::to_string(seed)};
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
  const std::vector<StudyVariant> variants{variant("rope", "rope", false), variant("nopos", "none", false),
                                           variant("rope-shuffled", "rope", true)};
  std::vector<RunResult> runs;
  for (uint64_t seed : {1, 2, 3}) {
    runs.push_back(run("rope", seed, 360 + static_cast<int>(seed), 0.6));  // ~90%
    runs.push_back(run("nopos", seed, 200, 0.995));                        // 50%, attention uniform
    runs.push_back(run("rope-shuffled", seed, 200, 0.7));                  // as nopos: order carried it
  }
  StatisticsOptions options;
  options.replicates = 1000;
  const StudyEvidence e = gather_evidence(variants, runs, options);

  CHECK(e.reference == "nopos");
  REQUIRE(e.cells.size() == 1);
  REQUIRE(e.verdicts.size() == 1);
  CHECK_THAT(e.verdicts[0], Catch::StartsWith("test: ") && Catch::Contains("rope > "));

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
  std::vector<StudyVariant> variants{variant("rope", "rope", false), variant("nopos", "none", false),
                                     variant("alibi", "alibi", false), variant("alibi-cls", "alibi", false)};
  variants[3].config.model.pooling = Pooling::cls;
  std::vector<RunResult> runs;
  for (uint64_t seed : {1, 2})
    for (const StudyVariant& v : variants) runs.push_back(run(v.name, seed, 300, 0.8));
  StatisticsOptions options;
  options.replicates = 200;
  StudyReport report;
  report.evidence = gather_evidence(variants, runs, options);
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
  const std::vector<StudyVariant> variants{variant("rope", "rope", false), variant("rope-shuffled", "rope", true)};
  std::vector<RunResult> runs;
  for (uint64_t seed : {1, 2}) {
    runs.push_back(run("rope", seed, 300, 0.5));
    runs.push_back(run("rope-shuffled", seed, 300 - static_cast<int>(seed), 0.5));
  }
  const StudyEvidence e = gather_evidence(variants, runs, StatisticsOptions{});
  CHECK(e.reference.empty());
  REQUIRE(e.order.size() == 1);
  CHECK_FALSE(e.order[0].gap.different);
  CHECK_THAT(e.order_verdict, Catch::Contains("cannot rank position encodings"));
  CHECK(e.usage[0].differs_from_none == -1.0);
}

TEST_CASE("evidence: runs scored on other documents are refused", "[study]") {
  const std::vector<StudyVariant> variants{variant("rope", "rope", false), variant("alibi", "alibi", false)};
  std::vector<RunResult> runs{run("rope", 1, 300, 0.5), run("alibi", 1, 300, 0.5)};
  runs[1].sweep[0].labels[7] = 0;
  CHECK_THROWS_WITH(gather_evidence(variants, runs, StatisticsOptions{}),
                    Catch::Contains("/runs/alibi-seed1/length_sweep.json") && Catch::Contains("labels differ"));
}

// The report's statistics come from one list (report_statistics.h): report.json,
// report.csv and report.md each show every row's part, in table order.
#include <catch2/catch.hpp>

#include "trainers/study/report_statistics.h"

using namespace rotor;

namespace {

// A finished run that predicts the first `correct` of 100 documents right at
// 16 tokens on test, and reaches val accuracy `reached` at step 10.
RunResult report_run(const std::string& variant, uint64_t seed, int correct, double reached) {
  RunResult r;
  r.run = {variant, seed, variant + "-seed" + std::to_string(seed)};
  r.dir = "/nonexistent/runs/" + r.run.id;
  r.finished = true;
  r.val_curve = {{5, 0.1}, {10, reached}};
  SweepCell c;
  c.split = "test";
  c.length = 16;
  c.available = true;
  c.labels.assign(100, 1);
  for (int d = 0; d < 100; ++d) c.predictions.push_back(d < correct ? 1 : 0);
  r.sweep.push_back(c);
  return r;
}

// Two variants (rope, none) x 2 seeds with a threshold: every statistic of the list has something to show.
StudyReport two_variant_report() {
  StudyReport report;
  StudySpec& spec = report.manifest.spec;
  spec.path = "/nonexistent/study.yaml";
  spec.seeds = {1, 2};
  spec.evaluation.splits = {"test"};
  spec.evaluation.lengths = {16};
  spec.evaluation.thresholds = {0.5};
  for (const std::string position : {"rope", "none"}) {
    StudyVariant v;
    v.name = position;
    v.config.model.position.type = position;
    spec.variants.push_back(v);
  }
  report.objective = &objective_spec(ObjectiveKind::classify);
  for (uint64_t seed : {1, 2}) {
    report.runs.push_back(report_run("rope", seed, 90, 0.9));
    report.runs.push_back(report_run("none", seed, 50, 0.4));
  }
  for (const StudyVariant& v : spec.variants) {
    std::vector<RunResult> own;
    for (const RunResult& r : report.runs)
      if (r.run.variant == v.name) own.push_back(r);
    report.variants.push_back(summarize_variant(v.name, own, {}));
  }
  StatisticsOptions options;
  options.replicates = 200;
  report.evidence = gather_evidence(spec.variants, report.runs, options, "");
  return report;
}

}  // namespace

TEST_CASE("report.json, report.csv and report.md each show every statistic of the list", "[study]") {
  const StudyReport report = two_variant_report();
  const nlohmann::json json = report_json(report);
  const std::string csv = report_csv(report);
  const PlotOutcome plots{{}, "no plots in this test"};
  const std::string markdown = report_markdown(report, plots);
  std::vector<std::string> names;
  for (const ReportStatistic& s : report_statistics()) {
    INFO(s.name);
    names.push_back(s.name);
    const nlohmann::json own = s.json ? s.json(report) : nlohmann::json::object();
    for (const auto& [key, value] : own.items()) CHECK(json.at(key).dump() == value.dump());  // NaN != NaN
    if (s.csv)
      for (const CsvRow& row : s.csv(report))
        CHECK_THAT(csv, Catch::Contains(row.scope + ',' + row.variant + ',' + row.seed + ',' + row.metric + ','));
    if (s.markdown) CHECK_THAT(markdown, Catch::Contains(s.markdown(report, plots)));
  }
  CHECK(names == std::vector<std::string>{"evidence", "papers_score", "convergence", "offset_profiles", "rope_decay"});
  // What the rows gave: the threshold's rows (a variant's and its runs'), the decay curve of the rope variant.
  CHECK_THAT(csv,
             Catch::Contains("variant,rope,,steps_to_threshold,") && Catch::Contains("run,rope,2,steps_to_threshold"));
  CHECK(json.at("rope_decay").at("head_dim") == report.manifest.spec.variants[0].config.model.rotary_dims());
  CHECK(json.at("convergence").size() == 1);
}

TEST_CASE("report.md places each statistic's section where its row says", "[study]") {
  const StudyReport report = two_variant_report();
  const std::string markdown = report_markdown(report, PlotOutcome{{}, "no plots in this test"});
  const size_t per_seed = markdown.find("\n## Per seed\n"), sweeps = markdown.find("\n## Length extrapolation\n"),
               plots = markdown.find("\n## Plots\n");
  REQUIRE(plots != std::string::npos);
  const size_t verdict = markdown.find("## Verdict"), steps = markdown.find("\n## Steps to threshold\n"),
               offsets = markdown.find("\n## Attention against distance\n");
  CHECK(verdict < steps);  // in table order
  CHECK(steps < per_seed);
  CHECK(sweeps < offsets);
  CHECK(offsets < plots);
}

TEST_CASE("report.md names the builds that trained its runs", "[study]") {
  StudyReport report = two_variant_report();
  for (size_t i = 0; i < report.runs.size(); ++i) report.runs[i].build = i == 0 ? "" : "2e8571b0c4f1";
  const std::string markdown = report_markdown(report, PlotOutcome{{}, "no plots in this test"});
  CHECK_THAT(markdown, Catch::Contains("Trained by: an unnamed older build (1 run), `2e8571b0c4f1` (3 runs)."));
}

// A study report built from the run directories, and report.json (report.csv: report_csv.cpp).
#include "datasets/tasks/builtin_tasks.h"
#include "trainers/study/report_statistics.h"

namespace rotor {
using nlohmann::json;
namespace {

json stats_json(const SeedStats& s) {
  return {{"n", s.n}, {"mean", s.mean}, {"std", s.std}, {"min", s.min}, {"max", s.max}};
}

// 5000 replicates: with 8 variants (28 pairs) the smallest Holm-adjusted p
// a bootstrap can show is 28 / 5001 < 0.01, so strong differences read as such;
// a cell with more rows (variants times compared RoPE scalings) gets as many
// more as keep that resolution.
StatisticsOptions report_statistics_options() {
  StatisticsOptions o;
  o.replicates = 5000;
  o.holm_resolution = 0.01;
  return o;
}

json cell_point(const SweepCell& c) { return {{"split", c.split}, {"length", c.length}, {"scaling", c.scaling}}; }

// The name of a validation curve's value in report.json: the objective's default best metric.
const std::string& curve_key(const ObjectiveSpec& objective) { return objective.default_best_metric; }

json run_json(const RunResult& r, const ObjectiveSpec& objective) {
  json j{{"variant", r.run.variant}, {"seed", r.run.seed}, {"id", r.run.id}, {"dir", r.dir}, {"finished", r.finished}};
  if (!r.finished) return j;
  j.update({{"parameters", r.parameters},
            {"steps", r.steps},
            {"best_step", r.best_step},
            {"elapsed_s", r.elapsed_s},
            {"tokens_per_s", r.tokens_per_s},
            {"build", r.build},
            {"metrics", r.metrics},
            {"val_curve", json::array()},
            {"sweep", json::array()}});
  for (const auto& [step, value] : r.val_curve)
    j["val_curve"].push_back({{"step", step}, {curve_key(objective), value}});
  for (const SweepCell& c : r.sweep) {
    json cell = cell_point(c);
    cell["available"] = c.available;
    if (c.available && c.stream_windows)
      cell.update({{"accuracy", c.metric("accuracy")},
                   {"loss", c.metric("loss")},
                   {"perplexity", c.metric("perplexity")},
                   {"stride", c.stride},
                   {"max_tokens", c.max_tokens},
                   {"windows", c.documents}});
    else if (c.available) {  // every score the objective declares for a document or sample
      for (const MetricDeclaration& m : objective.metrics) cell[m.name] = c.metric(m.name);
      cell["documents"] = c.documents;
    } else
      cell["reason"] = c.reason;
    j["sweep"].push_back(cell);
  }
  return j;
}

json variant_json(const VariantSummary& v, const StudyVariant& spec, const ObjectiveSpec& objective) {
  const std::map<std::string, int64_t> longest = generated_splits_max_tokens(spec.config.data);
  json j{{"name", v.name},
         {"position", spec.config.model.position.type},
         {"training_length", spec.config.data.max_len},  // the training window
         // A generated task's longest training sample (0: not known), which the window may exceed.
         {"longest_training_sample", longest.count("train") ? longest.at("train") : 0},
         {"overrides", spec.overrides},
         {"runs", v.runs},
         {"finished", v.finished},
         {"parameters", v.parameters},
         {"metrics", json::object()},
         {"val_curve", json::array()},
         {"sweep", json::array()}};
  for (const auto& [key, s] : v.metrics) j["metrics"][key] = stats_json(s);
  for (const CurvePoint& p : v.val_curve)
    j["val_curve"].push_back({{"step", p.step}, {curve_key(objective), stats_json(p.accuracy)}});
  for (const SweepStats& s : v.sweep) {
    json cell = cell_point(s.point);
    cell["available"] = s.available;
    if (s.available)
      for (const std::string& metric : objective.study_metrics) cell[metric] = stats_json(s.metric(metric));
    else
      cell["reason"] = s.point.reason;
    j["sweep"].push_back(cell);
  }
  return j;
}

}  // namespace

StudyReport build_study_report(const std::string& study_dir, const StudyManifest& manifest) {
  StudyReport report;
  report.dir = study_dir;
  report.manifest = manifest;
  const StudySpec& spec = manifest.spec;
  report.objective = &objective_spec(spec.variants.front().config.train.objective);
  for (const StudyRun& run : spec.runs())
    report.runs.push_back(read_run_result(run, run_directory(study_dir, run), *report.objective));
  for (const StudyVariant& v : spec.variants) {
    std::vector<RunResult> own;
    for (const RunResult& r : report.runs)
      if (r.run.variant == v.name) own.push_back(r);
    report.variants.push_back(summarize_variant(v.name, own, sweep_plan(spec, v.config)));
  }
  report.evidence = gather_evidence(spec.variants, report.runs, report_statistics_options(), spec.comparisons_against);
  return report;
}

json report_json(const StudyReport& report) {
  const StudySpec& spec = report.manifest.spec;
  json j{{"command", report.manifest.command},
         {"spec", spec.path},
         {"base", spec.base},
         {"seeds", spec.seeds},
         {"evaluation",
          {{"splits", spec.evaluation.splits},
           {"lengths", spec.evaluation.lengths},
           {"scalings", spec.evaluation.scalings},
           {"thresholds", spec.evaluation.thresholds}}},
         {"variants", json::array()},
         {"runs", json::array()}};
  // A study of documents' predicted classes has no such key (its reports predate it); others name their objective.
  if (!report.evidence.classes_predicted()) j["objective"] = report.objective->name();
  // The score plot_study.py draws against length for a study of samples (token accuracy); a classifier's accuracy
  // and a language model's perplexity it knows by objective, and their reports keep their keys.
  if (report.objective->evidence == EvidenceUnit::sample) {
    const MetricDeclaration& m = evidence_declaration(*report.objective);
    j["evidence_metric"] = {{"name", m.name}, {"label", m.shown_name()}};
  }
  for (size_t i = 0; i < report.variants.size(); ++i)
    j["variants"].push_back(variant_json(report.variants[i], spec.variants[i], *report.objective));
  for (const RunResult& r : report.runs) j["runs"].push_back(run_json(r, *report.objective));
  for (const ReportStatistic& s : report_statistics())
    if (s.json) j.update(s.json(report));
  return j;
}

}  // namespace rotor

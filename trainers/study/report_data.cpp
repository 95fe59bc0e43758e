// The machine-readable parts of a study report: building it from the run
// directories, report.json and report.csv.
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "models/position_encoding.h"
#include "trainers/study/report_metrics.h"
#include "trainers/study/study_report.h"

namespace rotor {
using nlohmann::json;
namespace {

json stats_json(const SeedStats& s) {
  return {{"n", s.n}, {"mean", s.mean}, {"std", s.std}, {"min", s.min}, {"max", s.max}};
}

// 5000 replicates: with 8 variants (28 pairs) the smallest Holm-adjusted p
// a bootstrap can show is 28 / 5001 < 0.01, so strong differences read as such.
StatisticsOptions report_statistics_options() {
  StatisticsOptions o;
  o.replicates = 5000;
  return o;
}

json order_json(const StudyEvidence& e) {
  json j{{"verdict", e.order_verdict}, {"gaps", json::array()}};
  for (const OrderDependence& o : e.order)
    j["gaps"].push_back({{"variant", o.variant},
                         {"shuffled", o.shuffled},
                         {"split", o.split},
                         {"length", o.length},
                         {"gap", to_json(o.gap)}});
  return j;
}

json usage_json(const StudyEvidence& e) {
  json j{{"reference", e.reference},
         {"near_uniform_entropy", kUniformEntropy},
         {"verdicts", e.usage_verdicts},
         {"variants", json::array()}};
  for (const PositionUsage& u : e.usage)
    j["variants"].push_back({{"variant", u.variant},
                             {"differs_from_none", u.differs_from_none},
                             {"differing_per_seed", u.differing_per_seed},
                             {"documents", u.documents},
                             {"indistinguishable_from_none", u.indistinguishable_from_none},
                             {"measured_runs", u.measured_runs},
                             {"near_uniform_runs", u.near_uniform_runs},
                             {"layer_entropy", u.layer_entropy},
                             {"order_blind", u.order_blind}});
  return j;
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
  json j{{"name", v.name},
         {"position", spec.config.model.position.type},
         {"training_length", spec.config.data.max_len},
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

// One CSV row: scope, variant, seed, metric, split, step, length, scaling,
// value, std, min, max, n, note.
struct CsvRow {
  std::string scope, variant, seed, metric, split, step, length, scaling;
  double value = NAN, std = NAN, min = NAN, max = NAN;
  int64_t n = 1;
  std::string note;
};

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_number(double v) {
  if (std::isnan(v)) return "";
  return fmt::format("{:.10g}", v);
}

CsvRow make_row(const std::string& scope, const std::string& variant, const std::string& seed,
                const std::string& metric) {
  CsvRow row;
  row.scope = scope;
  row.variant = variant;
  row.seed = seed;
  row.metric = metric;
  return row;
}

CsvRow aggregate_row(const std::string& variant, const std::string& metric, const SeedStats& s) {
  CsvRow row = make_row("variant", variant, "", metric);
  row.value = s.mean;
  row.std = s.std;
  row.min = s.min;
  row.max = s.max;
  row.n = s.n;
  return row;
}

// "test_accuracy" -> split "test", metric "accuracy", for the metrics in `metrics`.
void split_metric(const std::string& key, const std::vector<std::string>& metrics, CsvRow& row) {
  for (const std::string& metric : metrics) {
    const std::string tail = "_" + metric;
    if (key.size() > tail.size() && key.compare(key.size() - tail.size(), tail.size(), tail) == 0) {
      row.split = key.substr(0, key.size() - tail.size());
      row.metric = metric;
      return;
    }
  }
}

std::vector<CsvRow> run_rows(const RunResult& r, const ObjectiveSpec& objective) {
  std::vector<CsvRow> rows;
  const std::string seed = std::to_string(r.run.seed);
  auto add = [&](const std::string& metric, double value) {
    CsvRow row = make_row("run", r.run.variant, seed, metric);
    row.value = value;
    split_metric(metric, csv_split_metrics(objective), row);
    rows.push_back(row);
  };
  add("parameters", static_cast<double>(r.parameters));
  add("tokens_per_s", r.tokens_per_s);
  add("elapsed_s", r.elapsed_s);
  for (const auto& [key, value] : r.metrics) add(key, value);
  for (const auto& [step, value] : r.val_curve) {
    CsvRow row = make_row("run", r.run.variant, seed, "val_curve_" + curve_key(objective));
    row.split = "val";
    row.step = std::to_string(step);
    row.value = value;
    rows.push_back(row);
  }
  for (const SweepCell& c : r.sweep)
    for (const std::string& metric : csv_sweep_metrics(objective, true)) {
      CsvRow row = make_row("run", r.run.variant, seed, "sweep_" + metric);
      row.split = c.split;
      row.length = std::to_string(c.length);
      row.scaling = c.scaling;
      row.value = c.metric(metric);
      row.note = c.available ? "" : "n/a: " + c.reason;
      rows.push_back(row);
    }
  return rows;
}

std::vector<CsvRow> variant_rows(const VariantSummary& v, const ObjectiveSpec& objective) {
  std::vector<CsvRow> rows;
  CsvRow params = aggregate_row(v.name, "parameters", seed_stats({static_cast<double>(v.parameters)}));
  params.n = v.finished;
  rows.push_back(params);
  for (const auto& [key, s] : v.metrics) {
    CsvRow row = aggregate_row(v.name, key, s);
    split_metric(key, csv_split_metrics(objective), row);
    rows.push_back(row);
  }
  for (const CurvePoint& p : v.val_curve) {
    CsvRow row = aggregate_row(v.name, "val_curve_" + curve_key(objective), p.accuracy);
    row.split = "val";
    row.step = std::to_string(p.step);
    rows.push_back(row);
  }
  for (const SweepStats& s : v.sweep)
    for (const std::string& metric : csv_sweep_metrics(objective, false)) {
      CsvRow row = aggregate_row(v.name, "sweep_" + metric, s.metric(metric));
      row.split = s.point.split;
      row.length = std::to_string(s.point.length);
      row.scaling = s.point.scaling;
      if (!s.available) row.note = "n/a: " + s.point.reason;
      rows.push_back(row);
    }
  return rows;
}

// Steps to each threshold: a row per run that reached it and one per variant
// (n: the seeds that reached it); the threshold is in the note.
std::vector<CsvRow> convergence_rows(const ThresholdConvergence& c) {
  std::vector<CsvRow> rows;
  const std::string note = fmt::format("threshold {:g}", c.threshold);
  for (const VariantConvergence& v : c.variants) {
    std::vector<double> steps;
    for (const auto& seed_step : v.steps) steps.push_back(seed_step.second);
    CsvRow row = aggregate_row(v.name, "steps_to_threshold", seed_stats(steps));
    row.note = note;
    rows.push_back(row);
    for (const auto& [seed, step] : v.steps) {
      CsvRow run = make_row("run", v.name, std::to_string(seed), "steps_to_threshold");
      run.value = step;
      run.note = note;
      rows.push_back(run);
    }
  }
  return rows;
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
  std::vector<std::string> names;
  for (const StudyVariant& v : spec.variants) names.push_back(v.name);
  for (double threshold : spec.evaluation.thresholds)
    report.convergence.push_back(
        threshold_convergence(names, report.runs, threshold,
                              report.objective->find_metric(report.objective->default_best_metric)->lower_is_better,
                              report.evidence.options.alpha));
  for (const StudyVariant& v : spec.variants) {
    if (!position_encoding(v.config.model.position.type).rope_frequencies) continue;
    report.decay_head_dim = v.config.model.rotary_dims();
    report.decay_base = v.config.model.position.number("base");
    int64_t longest = v.config.data.max_len;
    for (int64_t l : spec.evaluation.lengths) longest = std::max(longest, l);
    report.decay = rope_decay(report.decay_head_dim, report.decay_base, longest, 0);
    break;
  }
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
         {"verdicts", report.evidence.verdicts},
         {"statistics", statistics_json(report.evidence.cells, report.evidence.options)},
         {"order_dependence", order_json(report.evidence)},
         {"position_usage", usage_json(report.evidence)},
         {"offset_profiles", offsets_json(report)},
         {"frequency_use", frequencies_json(report)},
         {"convergence", json::array()},
         {"variants", json::array()},
         {"runs", json::array()}};
  j["statistics"]["method"]["comparisons"] =
      report.evidence.against.empty() ? "all pairs" : "planned: each variant against " + report.evidence.against;
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
  for (const ThresholdConvergence& c : report.convergence) j["convergence"].push_back(to_json(c));
  if (!report.decay.empty()) {
    json points = json::array();
    for (const RopeDecayPoint& p : report.decay)
      points.push_back({{"distance", p.distance}, {"bound", p.bound}, {"score", p.score}});
    j["rope_decay"] = {{"head_dim", report.decay_head_dim}, {"base", report.decay_base}, {"points", points}};
  }
  return j;
}

std::string report_csv(const StudyReport& report) {
  std::ostringstream out;
  out << "scope,variant,seed,metric,split,step,length,scaling,value,std,min,max,n,note\n";
  std::vector<CsvRow> rows;
  for (const VariantSummary& v : report.variants) {
    const std::vector<CsvRow> more = variant_rows(v, *report.objective);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  for (const RunResult& r : report.runs) {
    if (!r.finished) continue;
    const std::vector<CsvRow> more = run_rows(r, *report.objective);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  for (const ThresholdConvergence& c : report.convergence) {
    const std::vector<CsvRow> more = convergence_rows(c);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  for (const CsvRow& r : rows)
    out << r.scope << ',' << csv_field(r.variant) << ',' << r.seed << ',' << r.metric << ',' << csv_field(r.split)
        << ',' << r.step << ',' << r.length << ',' << r.scaling << ',' << csv_number(r.value) << ','
        << csv_number(r.std) << ',' << csv_number(r.min) << ',' << csv_number(r.max) << ',' << r.n << ','
        << csv_field(r.note) << '\n';
  return out.str();
}

}  // namespace rotor

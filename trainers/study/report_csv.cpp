// report.csv: every number of report.json as a tidy table, one number per row.
#include "trainers/study/report_csv.h"

#include <sstream>

#include <fmt/format.h>

#include "trainers/study/report_metrics.h"
#include "trainers/study/report_statistics.h"

namespace rotor {

CsvRow run_row(const std::string& variant, const std::string& seed, const std::string& metric, double value) {
  CsvRow row;
  row.scope = "run";
  row.variant = variant;
  row.seed = seed;
  row.metric = metric;
  row.value = value;
  return row;
}

CsvRow aggregate_row(const std::string& variant, const std::string& metric, const SeedStats& s) {
  CsvRow row;
  row.scope = "variant";
  row.variant = variant;
  row.metric = metric;
  row.value = s.mean;
  row.std = s.std;
  row.min = s.min;
  row.max = s.max;
  row.n = s.n;
  return row;
}

namespace {

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
    rows.push_back(run_row(r.run.variant, seed, metric, value));
    split_metric(metric, csv_split_metrics(objective), rows.back());
  };
  add("parameters", static_cast<double>(r.parameters));
  add("tokens_per_s", r.tokens_per_s);
  add("elapsed_s", r.elapsed_s);
  for (const auto& [key, value] : r.metrics) add(key, value);
  for (const auto& [step, value] : r.val_curve) {
    CsvRow row = run_row(r.run.variant, seed, "val_curve_" + objective.default_best_metric, value);
    row.split = "val";
    row.step = std::to_string(step);
    rows.push_back(row);
  }
  for (const SweepCell& c : r.sweep)
    for (const std::string& metric : csv_sweep_metrics(objective, true)) {
      CsvRow row = run_row(r.run.variant, seed, "sweep_" + metric, c.metric(metric));
      row.split = c.split;
      row.length = std::to_string(c.length);
      row.scaling = c.scaling;
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
    CsvRow row = aggregate_row(v.name, "val_curve_" + objective.default_best_metric, p.accuracy);
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

}  // namespace

std::string report_csv(const StudyReport& report) {
  std::vector<CsvRow> rows;
  const auto append = [&rows](const std::vector<CsvRow>& more) { rows.insert(rows.end(), more.begin(), more.end()); };
  for (const VariantSummary& v : report.variants) append(variant_rows(v, *report.objective));
  for (const RunResult& r : report.runs)
    if (r.finished) append(run_rows(r, *report.objective));
  for (const ReportStatistic& s : report_statistics())
    if (s.csv) append(s.csv(report));
  std::ostringstream out;
  out << "scope,variant,seed,metric,split,step,length,scaling,value,std,min,max,n,note\n";
  for (const CsvRow& r : rows)
    out << r.scope << ',' << csv_field(r.variant) << ',' << r.seed << ',' << r.metric << ',' << csv_field(r.split)
        << ',' << r.step << ',' << r.length << ',' << r.scaling << ',' << csv_number(r.value) << ','
        << csv_number(r.std) << ',' << csv_number(r.min) << ',' << csv_number(r.max) << ',' << r.n << ','
        << csv_field(r.note) << '\n';
  return out.str();
}

}  // namespace rotor

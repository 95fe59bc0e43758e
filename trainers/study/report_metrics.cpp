// The report's metric choices from the objective's row (report_metrics.h).
#include "trainers/study/report_metrics.h"

#include <cctype>

namespace rotor {
namespace {

bool language_model(const ObjectiveSpec& objective) { return objective.evidence == EvidenceUnit::window; }

const std::vector<std::string>& table_metrics(const ObjectiveSpec& objective) {
  return objective.table_metrics.empty() ? objective.study_metrics : objective.table_metrics;
}

std::string capitalized(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

}  // namespace

std::vector<ReportColumn> split_columns(const ObjectiveSpec& objective) {
  std::vector<ReportColumn> columns;
  for (const std::string split : {"val", "test"})
    for (const std::string& metric : table_metrics(objective)) {
      const MetricDeclaration* declared = objective.find_metric(metric);
      std::string header = capitalized(split) + " " + (declared ? declared->shown_name() : metric);
      if (declared && !declared->unit.empty()) header += " (" + declared->unit + ")";
      columns.push_back({split + "_" + metric, header});
    }
  return columns;
}

std::string percent_metrics_sentence(const ObjectiveSpec& objective) {
  std::string out;
  const std::vector<std::string>& names = objective.study_metrics;
  for (size_t i = 0; i < names.size(); ++i) {
    const MetricDeclaration* declared = objective.find_metric(names[i]);
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + (declared ? declared->shown_name() : names[i]);
  }
  return capitalized(out) + " in percent";
}

std::string sweep_metric(const ObjectiveSpec& objective) { return table_metrics(objective).front(); }

std::vector<std::string> csv_sweep_metrics(const ObjectiveSpec& objective, bool per_run) {
  if (language_model(objective)) return {"accuracy", per_run ? "loss" : "perplexity"};
  return objective.study_metrics;
}

std::vector<std::string> csv_split_metrics(const ObjectiveSpec& objective) {
  if (language_model(objective)) return {"accuracy"};
  return objective.study_metrics;
}

}  // namespace rotor

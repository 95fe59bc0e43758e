// The table of a study report's statistics (report_statistics.h).
#include "trainers/study/report_statistics.h"

namespace rotor {

// Each defined in the statistic's own file.
ReportStatistic evidence_statistic();
ReportStatistic papers_score_statistic();
ReportStatistic convergence_statistic();
ReportStatistic offset_profiles_statistic();
ReportStatistic rope_decay_statistic();

const std::vector<ReportStatistic>& report_statistics() {
  static const std::vector<ReportStatistic> rows{evidence_statistic(), papers_score_statistic(),
                                                 convergence_statistic(), offset_profiles_statistic(),
                                                 rope_decay_statistic()};
  return rows;
}

std::string statistics_markdown(const StudyReport& report, const PlotOutcome& plots, ReportPlace place) {
  std::string out;
  for (const ReportStatistic& s : report_statistics())
    if (s.place == place && s.markdown) out += s.markdown(report, plots);
  return out;
}

}  // namespace rotor

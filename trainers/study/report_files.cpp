// Writing a study's report files: data first, then the plots drawn from
// report.json, then report.md, which shows the plots or says how to get them.
#include <filesystem>

#include "trainers/study/plot_script.h"
#include "trainers/study/study_files.h"
#include "trainers/study/study_report.h"

namespace rotor {
namespace fs = std::filesystem;

PlotOutcome write_study_report(const StudyReport& report) {
  const fs::path dir = report.dir;
  write_json_file((dir / "report.json").string(), report_json(report));
  write_text_file((dir / "report.csv").string(), report_csv(report));
  PlotOutcome plots;
  fs::create_directories(dir / "plots");
  plots.problem = run_plot_script("study", {(dir / "report.json").string(), (dir / "plots").string()});
  if (plots.problem.empty())
    for (const char* ext : {".png", ".svg"})
      for (const char* name : {"val_accuracy", "length_extrapolation", "rope_decay"})
        if (fs::exists(dir / "plots" / (std::string(name) + ext)))
          plots.files.push_back("plots/" + std::string(name) + ext);
  write_text_file((dir / "report.md").string(), report_markdown(report, plots));
  return plots;
}

}  // namespace rotor

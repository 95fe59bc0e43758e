// Writing a study's report files: data first, then the plots drawn from
// report.json, then report.md, which shows the plots or says how to get them.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "trainers/run/json_file.h"
#include "trainers/study/plot_script.h"
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
  if (plots.problem.empty()) {
    // The fixed plots, then one pairwise-difference heatmap per statistics cell and one offset profile (and a
    // rotary variant's frequency use) per variant and layer.
    std::vector<std::string> names{"val_accuracy", "val_loss", "length_extrapolation", "rope_decay"};
    std::vector<std::string> per_cell_or_layer;
    for (const fs::directory_entry& f : fs::directory_iterator(dir / "plots")) {
      const std::string stem = f.path().stem().string();
      if ((stem.rfind("pairwise_", 0) == 0 || stem.rfind("offsets_", 0) == 0 || stem.rfind("frequencies_", 0) == 0) &&
          f.path().extension() == ".png")
        per_cell_or_layer.push_back(stem);
    }
    std::sort(per_cell_or_layer.begin(), per_cell_or_layer.end());
    names.insert(names.end(), per_cell_or_layer.begin(), per_cell_or_layer.end());
    for (const char* ext : {".png", ".svg"})
      for (const std::string& name : names)
        if (fs::exists(dir / "plots" / (name + ext))) plots.files.push_back("plots/" + name + ext);
  }
  write_text_file((dir / "report.md").string(), report_markdown(report, plots));
  return plots;
}

}  // namespace rotor

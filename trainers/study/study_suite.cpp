#include "trainers/study/study_suite.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "trainers/distributed/communicator.h"
#include "trainers/run/json_file.h"
#include "trainers/run/run_lock.h"
#include "trainers/study/plot_script.h"
#include "trainers/study/suite_papers.h"

namespace rotor {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

const char* kManifest = "suite.json";

struct TaskReport {
  std::string task;
  StudyReport report;
  int in_distribution = -1;  // index in report.evidence.cells: split "test", shortest length
  int longest = -1;          // the last split's longest length, when another cell

  const CellStatistics* cell(int index) const { return index < 0 ? nullptr : &report.evidence.cells[index]; }
};

// The cells the separation table shows: in distribution (test, its shortest
// length) and the farthest evaluation (the spec's last split, longest length).
TaskReport task_report(const std::string& task, StudyReport report) {
  TaskReport t{task, std::move(report)};
  const std::vector<std::string>& splits = t.report.manifest.spec.evaluation.splits;
  auto order = [&](const CellStatistics& c) {
    const auto at = std::find(splits.begin(), splits.end(), c.split);
    return std::make_pair(at - splits.begin(), c.length);
  };
  const std::vector<CellStatistics>& cells = t.report.evidence.cells;
  for (int i = 0; i < static_cast<int>(cells.size()); ++i) {
    if (cells[i].split == "test" && (t.in_distribution < 0 || cells[i].length < cells[t.in_distribution].length))
      t.in_distribution = i;
    if (t.longest < 0 || order(cells[i]) > order(cells[t.longest])) t.longest = i;
  }
  if (t.longest == t.in_distribution) t.longest = -1;
  return t;
}

std::string table_cell(const CellStatistics* cell, const std::string& variant) {
  if (cell == nullptr) return "–";
  for (const VariantStatistics& v : cell->variants)
    if (v.name == variant && v.n_seeds > 0) {
      const std::string value = fmt::format("{:.1f}", 100 * v.mean);
      return v.tier == 1 ? "**" + value + "**" : value;
    }
  return "–";
}

std::string where(const CellStatistics* cell) {
  return cell == nullptr ? "–" : fmt::format("{} @ {}", cell->split, cell->length);
}

std::string separation_table(const std::vector<TaskReport>& tasks) {
  const std::vector<StudyVariant>& variants = tasks.front().report.manifest.spec.variants;
  std::ostringstream o;
  const bool one_cell = std::all_of(tasks.begin(), tasks.end(), [](const TaskReport& t) { return t.longest < 0; });
  for (const bool longest : {false, true}) {
    if (longest && one_cell) continue;  // every task evaluated at one length: nothing farther to show
    o << "\n**" << (longest ? "Longest evaluation" : "In distribution") << "** (accuracy %, mean over seeds and "
      << "documents; **bold**: tier 1, the best variant and every one not resolved from it):\n\n| Task | Cell |";
    for (const StudyVariant& v : variants) o << " " << v.name << " |";
    o << "\n|---|---|";
    for (size_t i = 0; i < variants.size(); ++i) o << "--:|";
    o << "\n";
    for (const TaskReport& t : tasks) {
      const CellStatistics* cell = t.cell(longest ? t.longest : t.in_distribution);
      o << "| " << t.task << " | " << where(cell) << " |";
      for (const StudyVariant& v : variants) o << " " << table_cell(cell, v.name) << " |";
      o << "\n";
    }
  }
  return o.str();
}

std::vector<TaskPapersScores> task_papers_scores(const std::vector<TaskReport>& tasks) {
  std::vector<TaskPapersScores> out;
  for (const TaskReport& t : tasks) out.push_back({t.task, papers_scores(t.report)});
  return out;
}

// The papers' scores across the tasks; empty when the suite's objective declares none.
std::string papers_markdown(const std::vector<TaskReport>& tasks, const std::string& randomized_plot) {
  const ObjectiveSpec* objective = tasks.front().report.objective;
  if (objective == nullptr || !objective->papers_score) return "";
  return suite_papers_markdown(task_papers_scores(tasks), tasks.front().report.manifest.spec.variants,
                               objective->papers_score->protocol, randomized_plot);
}

// Draws the suite's plots from its report.json (tools/plot_study.py `suite`) and returns the markdown that shows
// the randomized positions' gains, or says why they were not drawn. A plot left by an earlier report goes first.
std::string draw_suite_plots(const std::string& dir) {
  const fs::path plots = fs::path(dir) / "plots";
  for (const char* ext : {".png", ".svg"}) fs::remove(plots / (std::string("randomized_gain") + ext));
  const std::string problem = run_plot_script("suite", {(fs::path(dir) / "report.json").string(), plots.string()});
  if (!problem.empty()) return "\nThe plot of these gains was not drawn: " + problem + "\n";
  if (!fs::exists(plots / "randomized_gain.png")) return "";
  return "\n![randomized_gain](plots/randomized_gain.png)\n";
}

std::string suite_markdown(const std::string& path, const std::vector<TaskReport>& tasks,
                           const std::string& randomized_plot) {
  const StudySpec& first = tasks.front().report.manifest.spec;
  std::ostringstream o;
  o << "# Suite: " << fs::path(path).stem().string() << "\n\n"
    << tasks.size() << " tasks x " << first.variants.size() << " variants x " << first.seeds.size()
    << " seeds. Each task is a study of its own, with its report in `<task>/report.md`; this page gathers them.\n\n"
    << "## Separation table\n"
    << separation_table(tasks) << papers_markdown(tasks, randomized_plot) << "\n## Verdicts\n\n";
  for (const TaskReport& t : tasks) {
    o << "**" << t.task << "** ([report](" << t.task << "/report.md))\n\n";
    for (const std::string& line : t.report.evidence.verdicts) o << "- " << line << "\n";
    if (!t.report.evidence.order_verdict.empty()) o << "- order control: " << t.report.evidence.order_verdict << "\n";
    for (const std::string& line : t.report.evidence.usage_verdicts) o << "- " << line << "\n";
    o << "\n";
  }
  return o.str();
}

json suite_json(const std::string& path, const std::vector<TaskReport>& tasks) {
  json j{{"spec", path}, {"tasks", json::array()}};
  for (const TaskReport& t : tasks) {
    json task{
        {"task", t.task}, {"verdicts", t.report.evidence.verdicts}, {"order_verdict", t.report.evidence.order_verdict}};
    task["in_distribution"] = t.in_distribution < 0 ? json() : to_json(*t.cell(t.in_distribution));
    task["longest"] = t.longest < 0 ? json() : to_json(*t.cell(t.longest));
    j["tasks"].push_back(task);
  }
  const ObjectiveSpec* objective = tasks.front().report.objective;
  if (objective != nullptr && objective->papers_score)
    j["papers_scores"] = suite_papers_json(task_papers_scores(tasks), tasks.front().report.manifest.spec.variants);
  return j;
}

}  // namespace

std::string suite_directory(const StudySuite& suite, const std::string& out) {
  if (!out.empty()) return out;
  if (!suite.out_dir.empty()) return suite.out_dir;
  return (fs::path("runs") / "compare" / fs::path(suite.path).stem()).string();
}

bool is_suite_directory(const std::string& dir) { return fs::exists(fs::path(dir) / kManifest); }

int run_suite(const StudySuite& suite, const StudyOptions& options) {
  Communicator& ranks = launched_ranks();
  {
    std::optional<RunLock> lock;  // held while the manifest is written; each task locks its own folder
    if (ranks.is_root()) {
      lock.emplace(options.dir, "study directory");
      json tasks = json::array();
      for (const StudySpec& s : suite.studies) tasks.push_back(s.task);
      write_json_file((fs::path(options.dir) / kManifest).string(),
                      {{"spec_path", suite.path}, {"command", options.command}, {"tasks", tasks}});
    }
  }
  for (size_t i = 0; i < suite.studies.size(); ++i) {
    const StudySpec& study = suite.studies[i];
    if (ranks.is_root()) fmt::print(stderr, "\n==== task {} of {}: {}\n", i + 1, suite.studies.size(), study.task);
    StudyOptions task_options = options;
    task_options.dir = (fs::path(options.dir) / study.task).string();
    task_options.report = false;  // written once, below, with the suite's
    if (const int code = run_study(study, task_options); code != 0) return code;
  }
  if (ranks.is_root()) rebuild_suite_report(options.dir);
  return 0;
}

void rebuild_suite_report(const std::string& dir) {
  const json manifest = read_json_file((fs::path(dir) / kManifest).string());
  std::vector<TaskReport> tasks;
  for (const json& name : manifest.at("tasks")) {
    const std::string task = name.get<std::string>();
    const std::string task_dir = (fs::path(dir) / task).string();
    if (fs::exists(fs::path(task_dir) / "study.json"))
      tasks.push_back(task_report(task, rebuild_study_report(task_dir)));
  }
  if (tasks.empty()) return;
  const std::string path = manifest.at("spec_path").get<std::string>();
  write_json_file((fs::path(dir) / "report.json").string(), suite_json(path, tasks));
  write_text_file((fs::path(dir) / "report.md").string(), suite_markdown(path, tasks, draw_suite_plots(dir)));
  fmt::print(stderr, "\nsuite report of {} tasks: {}/report.md, report.json\n", tasks.size(), dir);
}

}  // namespace rotor

#include "trainers/study/run_results.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "trainers/config/config.h"
#include "trainers/study/study_files.h"

namespace rotor {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Validation accuracy at every evaluation event of metrics.jsonl.
std::vector<std::pair<int64_t, double>> read_val_curve(const fs::path& path) {
  std::vector<std::pair<int64_t, double>> curve;
  std::ifstream in(path);
  int64_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    try {
      const json e = json::parse(line);
      if (e.value("event", "") == "eval" && e.value("split", "") == "val")
        curve.emplace_back(e.at("step").get<int64_t>(), e.at("accuracy").get<double>());
    } catch (const json::exception& ex) {
      throw ConfigError(path.string() + ":" + std::to_string(line_no) + ": not a metrics event (" + ex.what() + ")");
    }
  }
  return curve;
}

}  // namespace

std::string run_directory(const std::string& study_dir, const StudyRun& run) {
  return (fs::path(study_dir) / "runs" / run.id).string();
}

bool run_finished(const std::string& run_dir) { return fs::exists(fs::path(run_dir) / "summary.json"); }

RunResult read_run_result(const StudyRun& run, const std::string& run_dir) {
  RunResult r;
  r.run = run;
  r.dir = run_dir;
  r.finished = run_finished(run_dir);
  if (!r.finished) return r;
  const std::string summary_path = (fs::path(run_dir) / "summary.json").string();
  const json s = read_json_file(summary_path);
  try {
    r.parameters = s.at("parameters").get<int64_t>();
    r.steps = s.at("steps").get<int64_t>();
    r.best_step = s.at("best_step").get<int64_t>();
    r.elapsed_s = s.at("elapsed_s").get<double>();
    r.tokens_per_s = s.at("tokens_per_s").get<double>();
    for (const auto& [key, value] : s.items())
      if ((ends_with(key, "_accuracy") || ends_with(key, "_macro_f1")) && value.is_number())
        r.metrics[key] = value.get<double>();
  } catch (const json::exception& e) {
    throw ConfigError(summary_path + ": not a run summary (" + e.what() + ")");
  }
  r.val_curve = read_val_curve(fs::path(run_dir) / "metrics.jsonl");
  r.sweep = read_length_sweep(run_dir);
  r.attention = read_attention_usage(run_dir);
  return r;
}

}  // namespace rotor

#include "trainers/study/compare_command.h"

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "trainers/distributed/communicator.h"
#include "trainers/run/json_file.h"
#include "trainers/study/plot_script.h"
#include "trainers/study/rope_decay.h"
#include "trainers/study/study_runner.h"
#include "trainers/study/study_suite.h"

namespace rotor {
namespace fs = std::filesystem;

int compare_command(const CompareRequest& request) {
  // Under mpirun every rank trains whole runs alone (study_runner.h).
  runs_alone_on_each_rank();
  if (!request.report_dir.empty()) {
    if (!launched_ranks().is_root()) return 0;
    if (is_suite_directory(request.report_dir))
      rebuild_suite_report(request.report_dir);
    else
      rebuild_study_report(request.report_dir);
    return 0;
  }
  if (request.jobs < 1) throw ConfigError("--jobs: expected at least 1, got " + std::to_string(request.jobs));
  const StudySuite suite = parse_study_suite(request.spec);
  StudyOptions options;
  options.jobs = request.jobs;
  options.only = request.only;
  options.command = request.command;
  if (!request.task.empty() || !suite.has_tasks()) {  // one study: a plain spec, or one task of a suite
    const StudySpec& spec = request.task.empty() ? suite.studies.front() : suite.study(request.task);
    options.dir = study_directory(spec, request.out_dir);
    return run_study(spec, options);
  }
  if (!request.only.empty()) throw ConfigError("--only " + request.only + ": in a suite of tasks, give --task too");
  options.dir = suite_directory(suite, request.out_dir);
  return run_suite(suite, options);
}

int rope_decay_command(const RopeDecayRequest& r) {
  const std::vector<RopeDecayPoint> points = rope_decay(r.head_dim, r.base, r.max_distance, r.query_index);
  fmt::print("# RoPE long-term decay: head dim {}, base {:g}, query at position {}\n# {:>8} {:>9} {:>14} {:>14}\n",
             r.head_dim, r.base, r.query_index, "key", "distance", "bound", "score");
  for (const RopeDecayPoint& p : points)
    fmt::print("{:>10} {:>9} {:>14.6f} {:>14.6f}\n", p.key_position, p.distance, p.bound, p.score);
  if (r.out.empty()) return 0;
  fs::path stem = r.out;
  if (stem.extension() == ".png" || stem.extension() == ".svg") stem.replace_extension();
  nlohmann::json data{{"head_dim", r.head_dim}, {"base", r.base}, {"query_index", r.query_index}};
  for (const RopeDecayPoint& p : points)
    data["points"].push_back(
        {{"key", p.key_position}, {"distance", p.distance}, {"bound", p.bound}, {"score", p.score}});
  if (!stem.parent_path().empty()) fs::create_directories(stem.parent_path());
  write_json_file(stem.string() + ".json", data);
  const std::string problem = run_plot_script("decay", {stem.string() + ".json", stem.string()});
  if (!problem.empty()) {
    fmt::print(stderr, "data written to {}.json; no plot: {}\n", stem.string(), problem);
    return 0;
  }
  fmt::print(stderr, "plot: {0}.png, {0}.svg (data {0}.json)\n", stem.string());
  return 0;
}

}  // namespace rotor

#include "trainers/study/compare_command.h"

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "trainers/study/plot_script.h"
#include "trainers/study/rope_decay.h"
#include "trainers/study/study_files.h"
#include "trainers/study/study_runner.h"

namespace rotor {
namespace fs = std::filesystem;

int compare_command(const CompareRequest& request) {
  if (!request.report_dir.empty()) {
    rebuild_study_report(request.report_dir);
    return 0;
  }
  if (request.jobs < 1) throw ConfigError("--jobs: expected at least 1, got " + std::to_string(request.jobs));
  const StudySpec spec = parse_study_spec(request.spec);
  StudyOptions options;
  options.dir = study_directory(spec, request.out_dir);
  options.jobs = request.jobs;
  options.only = request.only;
  options.command = request.command;
  return run_study(spec, options);
}

int rope_decay_command(const RopeDecayRequest& r) {
  const std::vector<RopeDecayPoint> points = rope_decay(r.head_dim, r.base, r.max_distance, r.query_index);
  std::printf("# RoPE long-term decay: head dim %lld, base %g, query at position %lld\n# %8s %9s %14s %14s\n",
              static_cast<long long>(r.head_dim), r.base, static_cast<long long>(r.query_index), "key", "distance",
              "bound", "score");
  for (const RopeDecayPoint& p : points)
    std::printf("%10lld %9lld %14.6f %14.6f\n", static_cast<long long>(p.key_position),
                static_cast<long long>(p.distance), p.bound, p.score);
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
    std::fprintf(stderr, "data written to %s.json; no plot: %s\n", stem.string().c_str(), problem.c_str());
    return 0;
  }
  std::fprintf(stderr, "plot: %s.png, %s.svg (data %s.json)\n", stem.string().c_str(), stem.string().c_str(),
               stem.string().c_str());
  return 0;
}

}  // namespace rotor

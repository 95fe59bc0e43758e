#include "trainers/study/study_dry_run.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "models/position_encoding.h"
#include "trainers/config/config_loader.h"
#include "trainers/config/config_schema.h"
#include "trainers/run/run_directory.h"
#include "trainers/study/config_probes.h"
#include "trainers/study/run_results.h"
#include "trainers/study/study_clock.h"
#include "trainers/training/progress.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

// The value of `key` in `config`; "n/a" for a model.position key its encoding does not read (left at its default).
std::string value_text(const std::string& key, const Config& config) {
  const std::string position = "model.position.";
  if (key.rfind(position, 0) == 0 && key != position + "type" &&
      !position_encoding(config.model.position.type).declares(key.substr(position.size())))
    return "n/a";
  YAML::Emitter e;
  e << YAML::Flow << find_option(key)->get(config);
  return e.c_str();
}

// Whether the variants that read `key` give it more than one value.
bool differs(const std::string& key, const std::vector<StudyVariant>& variants) {
  std::vector<std::string> values;
  for (const StudyVariant& v : variants)
    if (const std::string value = value_text(key, v.config); value != "n/a") values.push_back(value);
  return std::find_if(values.begin(), values.end(), [&](const std::string& x) { return x != values.front(); }) !=
         values.end();
}

// Each variant's values of the keys in which any two variants differ (the run name aside).
std::string differences(const StudySpec& spec) {
  std::vector<std::string> keys;
  for (const StudyVariant& v : spec.variants)
    for (const std::string& key : differing_keys(spec.variants.front().config, v.config))
      if (key != "run.name" && std::find(keys.begin(), keys.end(), key) == keys.end() && differs(key, spec.variants))
        keys.push_back(key);
  if (keys.empty()) return "  none: every variant resolves to the same config\n";
  std::string out;
  for (const StudyVariant& v : spec.variants) {
    std::string values;
    for (const std::string& key : keys) values += (values.empty() ? "" : ", ") + key + ": " + value_text(key, v.config);
    out += fmt::format("  {:<20} {}\n", v.name, values);
  }
  return out;
}

// Runs of `variant` not finished in `dir`, and their committed steps.
std::pair<int64_t, int64_t> runs_left(const StudySpec& spec, const std::string& dir, const std::string& variant) {
  int64_t runs = 0, done_steps = 0;
  for (const StudyRun& run : spec.runs()) {
    const std::string run_dir = run_directory(dir, run);
    if (run.variant != variant || RunDirectory(run_dir).finished()) continue;
    ++runs;
    done_steps += committed_step(run_dir);
  }
  return {runs, done_steps};
}

std::string estimate(const StudySpec& spec, const DryRunOptions& options) {
  std::ostringstream o;
  ConfigProbes probes(options.probe_steps);
  share_cores_for_probes(options.jobs);
  double total = 0.0;
  int64_t runs_to_train = 0;
  for (const StudyVariant& v : spec.variants) {
    const auto [runs, done_steps] = runs_left(spec, options.dir, v.name);
    if (runs == 0) {
      o << fmt::format("  {:<20} every run finished\n", v.name);
      continue;
    }
    const ConfigProbe& p = probes.of(v);
    if (!p.problem.empty()) {
      o << fmt::format("  {:<20} cannot start: {}\n", v.name, p.problem);
      continue;
    }
    const int64_t steps = std::max<int64_t>(0, runs * p.timing.planned_steps - done_steps);
    const double seconds = p.timing.seconds_per_step * static_cast<double>(steps);
    o << fmt::format("  {:<20} {:.3f} s a step x {} steps ({} run{} of {}{}, {} threads) = {}\n", v.name,
                     p.timing.seconds_per_step, steps, runs, runs == 1 ? "" : "s", p.timing.planned_steps,
                     done_steps > 0 ? fmt::format(", {} steps done", done_steps) : "", p.timing.threads,
                     format_duration(seconds));
    total += seconds;
    runs_to_train += runs;
  }
  const int64_t slots = std::max<int64_t>(1, std::min(options.jobs, runs_to_train));
  o << fmt::format(
      "  total: about {} of training{}\n", format_duration(total / static_cast<double>(slots)),
      slots > 1 ? fmt::format(" with --jobs {} ({} one run at a time)", slots, format_duration(total)) : "");
  return o.str();
}

}  // namespace

std::string dry_run_study(const StudySpec& spec, const DryRunOptions& options) {
  const std::vector<StudyRun> runs = spec.runs();
  std::ostringstream o;
  o << fmt::format("dry run of {}: {} runs ({} variants x {} seeds) into {}\n", spec.path, runs.size(),
                   spec.variants.size(), spec.seeds.size(), fs::absolute(options.dir).lexically_normal().string());
  o << "\nruns:\n";
  for (const StudyRun& run : runs) {
    const std::string run_dir = run_directory(options.dir, run);
    const int64_t step = committed_step(run_dir);
    o << fmt::format("  {:<28} {}\n", run.id,
                     RunDirectory(run_dir).finished() ? "finished"
                     : step > 0                       ? fmt::format("started, resumes at step {}", step)
                                                      : "to train");
  }
  o << "\nwhere the variants' resolved configs differ (every other key is the same; each seed sets run.seed and "
       "data.seed):\n"
    << differences(spec);
  o << fmt::format(
      "\ntime estimate, training only ({} steps of each distinct config timed here after one to warm up; each "
      "run's length sweep and attention pass (and the first seed's offset profiles and frequency use) come on top):\n",
      options.probe_steps);
  o << estimate(spec, options);
  o << "\nnothing was trained or written (a dry run; the token cache aside); run without --dry-run to start\n";
  return o.str();
}

}  // namespace rotor

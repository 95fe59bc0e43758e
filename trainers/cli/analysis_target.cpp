#include "trainers/cli/analysis_target.h"

#include <filesystem>

#include <fmt/core.h>

#include "trainers/cli/checkpoint_argument.h"
#include "trainers/cli/command.h"
#include "trainers/config/config.h"
#include "trainers/run/output_file.h"
#include "trainers/study/plot_script.h"

namespace rotor {
namespace fs = std::filesystem;

void add_analysis_options(CLI::App* command, AnalysisRequest& request, const std::string& split) {
  add_checkpoint_argument(command, request.checkpoint);
  request.split = split;
  command->add_option("--split", request.split, "Split of the run's task (default " + split + ")");
  command->add_option("--max-len", request.max_len, "Window length in tokens (default: the run's evaluation length)")
      ->check(positive_number());
  command->add_option("--set", request.overrides, "Override a config key, e.g. --set run.precision=fp32");
  command->add_option("--out", request.out, "Folder for the JSON and the plots (default RUN/analysis)");
}

AnalysisTarget open_analysis_target(const AnalysisRequest& request) {
  const ResolvedCheckpoint resolved = checkpoint_file(request.checkpoint);
  fmt::print(stderr, "checkpoint {}\n", describe(resolved));
  AnalysisTarget t{resolved.path, restore_model(resolved.path, request.overrides), 0, request.out, std::nullopt};
  const Config& config = t.restored.header.config;
  t.max_len = request.max_len > 0 ? request.max_len : eval_max_len(config.data);
  check_trained_length(config.model, t.max_len, "--max-len");
  if (t.out.empty()) t.out = (fs::path(resolved.path).parent_path().parent_path() / "analysis").string();
  std::error_code ec;
  if (fs::exists(t.out, ec) && !fs::is_directory(t.out, ec))  // refused before the work, not after it
    throw ConfigError("--out " + t.out + " is a file, not a folder: --out names the folder for the JSON and plots");
  return t;
}

const TokenizedSplit& AnalysisTarget::split(const std::string& name) {
  if (!data) {
    LoadOptions opt;
    opt.tokenizer = restored.header.tokenizer;
    opt.labels = restored.header.labels;
    opt.warn = print_warning;
    data = load_dataset(restored.header.config.data, opt);
  }
  return data->split(name);
}

void write_analysis(const AnalysisTarget& target, const std::string& name, const std::string& mode,
                    nlohmann::json data) {
  data["checkpoint"] = target.checkpoint;
  data["precision"] = option_name(target.restored.header.config.run.precision);
  data["position"] = target.restored.header.config.model.position.type;
  fs::create_directories(target.out);
  const std::string stem = (fs::path(target.out) / name).string();
  write_output_file(stem + ".json", data.dump(1) + "\n");
  const std::string problem = run_plot_script(mode, {stem + ".json", stem});
  if (!problem.empty())
    print_warning(fmt::format("data written to {}.json; no plot: {}", stem, problem));
  else
    fmt::print(stderr, "written: {0}.json and its plots {0}*.png, {0}*.svg\n", stem);
}

}  // namespace rotor

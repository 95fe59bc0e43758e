// `rotor analyze`: rope-decay, RoPE's long-term decay (RoFormer Figure 2),
// printed, and plotted with --out, which needs no training; and the analyses
// of a checkpoint (analyze_commands.h), each in its own file.
#include <filesystem>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "trainers/cli/analyze_commands.h"
#include "trainers/config/config.h"
#include "trainers/run/output_file.h"
#include "trainers/study/plot_script.h"
#include "trainers/study/rope_decay.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

struct RopeDecayRequest {
  int64_t head_dim = 128;
  double base = 10000.0;
  int64_t max_distance = 256;
  int64_t query_index = 0;
  std::string out;  // FILE(.png|.svg): the curve's data as FILE.json and the plot as FILE.png and FILE.svg
};

// --out FILE or FILE.png|.svg names three files, FILE.json, FILE.png and
// FILE.svg, beside FILE: a FILE that is already a directory or a device
// (--out /dev/full) is refused, not used as a place to write FILE.json.
fs::path plot_stem(const std::string& out) {
  fs::path stem = out;
  if (stem.extension() == ".png" || stem.extension() == ".svg") stem.replace_extension();
  for (const fs::path& p : {fs::path(out), stem}) {
    std::error_code ec;
    const fs::file_status status = fs::status(p, ec);
    if (fs::exists(status) && !fs::is_regular_file(status))
      throw ConfigError(
          fmt::format("--out {}: {} is {}, not a file name; --out names the plot FILE (FILE.png, "
                      "FILE.svg and FILE.json are written)",
                      out, p.string(), fs::is_directory(status) ? "a directory" : "a device or pipe"));
  }
  return stem;
}

int rope_decay_command(const RopeDecayRequest& r) {
  const std::vector<RopeDecayPoint> points = rope_decay(r.head_dim, r.base, r.max_distance, r.query_index);
  fmt::print("# RoPE long-term decay: head dim {}, base {:g}, query at position {}\n# {:>8} {:>9} {:>14} {:>14}\n",
             r.head_dim, r.base, r.query_index, "key", "distance", "bound", "score");
  for (const RopeDecayPoint& p : points)
    fmt::print("{:>10} {:>9} {:>14.6f} {:>14.6f}\n", p.key_position, p.distance, p.bound, p.score);
  if (r.out.empty()) return 0;
  const fs::path stem = plot_stem(r.out);
  nlohmann::json data{{"head_dim", r.head_dim}, {"base", r.base}, {"query_index", r.query_index}};
  for (const RopeDecayPoint& p : points)
    data["points"].push_back(
        {{"key", p.key_position}, {"distance", p.distance}, {"bound", p.bound}, {"score", p.score}});
  if (!stem.parent_path().empty()) fs::create_directories(stem.parent_path());
  write_output_file(stem.string() + ".json", data.dump(2) + "\n");
  const std::string problem = run_plot_script("decay", {stem.string() + ".json", stem.string()});
  if (!problem.empty()) {
    fmt::print(stderr, "data written to {}.json; no plot: {}\n", stem.string(), problem);
    return 0;
  }
  fmt::print(stderr, "plot: {0}.png, {0}.svg (data {0}.json)\n", stem.string());
  return 0;
}

}  // namespace

Command add_analyze_command(CLI::App& app) {
  auto decay = std::make_shared<RopeDecayRequest>();
  auto* analyze = app.add_subcommand("analyze", "Analyses of an encoding or of a trained checkpoint");
  analyze->require_subcommand(1);
  auto* rd = analyze->add_subcommand("rope-decay", "RoPE long-term decay (RoFormer Figure 2): print and plot");
  rd->add_option("--head-dim", decay->head_dim, "Rotated dims per head (default 128)");
  rd->add_option("--base", decay->base, "RoPE base (default 10000)");
  rd->add_option("--max-distance", decay->max_distance, "Keys at positions 0..N (default 256)");
  rd->add_option("--query-index", decay->query_index, "Position of the query (default 0)");
  rd->add_option("--out", decay->out, "Plot file: FILE.png and FILE.svg, data in FILE.json");
  const std::vector<Command> subcommands{{rd, [decay] { return rope_decay_command(*decay); }},
                                         add_analyze_attention_command(*analyze),
                                         add_analyze_offsets_command(*analyze),
                                         add_analyze_frequencies_command(*analyze),
                                         add_analyze_bias_command(*analyze),
                                         add_analyze_passkey_command(*analyze)};
  return {analyze, [subcommands] {
            for (const Command& c : subcommands)
              if (c.app->parsed()) return c.run();
            return 0;  // require_subcommand(1): CLI11 refused the command line before this
          }};
}

}  // namespace rotor

// `rotor analyze bias CKPT`: an offset-biased model's learned bias against
// distance per head, and the attention the bias alone gives
// (diagnostics/bias_profile.h): a summary printed, and with --out DIR the
// numbers in DIR/bias.json and the plot in DIR/bias.png and DIR/bias.svg.
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "trainers/cli/analyze_commands.h"
#include "trainers/cli/checkpoint_argument.h"
#include "trainers/config/objective_table.h"
#include "trainers/diagnostics/bias_profile.h"
#include "trainers/run/output_file.h"
#include "trainers/study/plot_script.h"
#include "trainers/training/restored_model.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

struct AnalyzeBiasRequest {
  std::string checkpoint;
  int64_t max_distance = 0;  // 0: 4 x the training length
  std::vector<std::string> overrides;
  std::string out;  // a directory for bias.json, bias.png, bias.svg; empty: print only
};

// The bias-only attention's mean |key - query|: how far the bias alone lets a query look.
double mean_attention_distance(const BiasRow& row, size_t head) {
  double sum = 0;
  for (size_t k = 0; k < row.attention[head].size(); ++k)
    sum += row.attention[head][k] * std::abs(static_cast<double>(row.first_key + int64_t(k) - row.query_position));
  return sum;
}

// bias(distance) of a row; distances outside it print as "-".
std::string bias_at(const BiasRow& row, size_t head, int64_t distance) {
  const int64_t k = row.query_position + distance - row.first_key;
  if (k < 0 || k >= static_cast<int64_t>(row.bias[head].size())) return "-";
  return fmt::format("{:.4g}", row.bias[head][static_cast<size_t>(k)]);
}

void print_profile(const BiasProfile& p) {
  const int64_t L = p.training_length, D = p.max_distance;
  fmt::print("bias b(d) at key - query = d, for the far query (position {}); FIRE's depends on the position too\n",
             p.layers.front().rows.back().query_position);
  fmt::print("mean |d| of the attention the bias alone gives, for the query at {} and at {}\n", L - 1,
             p.layers.front().rows.back().query_position);
  const std::vector<int64_t> shown =
      p.causal ? std::vector<int64_t>{-1, -(L - 1), -D} : std::vector<int64_t>{-D, -(L - 1), -1, 1, L - 1, D};
  std::string header = fmt::format("{:>6} {:>5}", "layer", "head");
  for (int64_t d : shown) header += fmt::format(" {:>10}", fmt::format("b({})", d));
  fmt::print("{} {:>12} {:>12}\n", header, fmt::format("|d| at {}", L - 1), "|d| far");
  for (const LayerBiasRows& layer : p.layers)
    for (size_t h = 0; h < layer.rows.front().bias.size(); ++h) {
      std::string line = fmt::format("{:>6} {:>5}", layer.layer < 0 ? "all" : std::to_string(layer.layer), h);
      for (int64_t d : shown) line += fmt::format(" {:>10}", bias_at(layer.rows.back(), h, d));
      fmt::print("{} {:>12.2f} {:>12.2f}\n", line, mean_attention_distance(layer.rows.front(), h),
                 mean_attention_distance(layer.rows.back(), h));
    }
}

void write_files(const BiasProfile& profile, const std::string& encoding, const std::string& checkpoint,
                 const fs::path& dir) {
  fs::create_directories(dir);
  nlohmann::json data = bias_profile_json(profile);
  data["encoding"] = encoding;
  data["checkpoint"] = checkpoint;
  const std::string stem = (dir / "bias").string();
  write_output_file(stem + ".json", data.dump(1) + "\n");
  const std::string problem = run_plot_script("bias", {stem + ".json", stem});
  if (!problem.empty())
    fmt::print(stderr, "data written to {}.json; no plot: {}\n", stem, problem);
  else
    fmt::print(stderr, "plot: {0}.png, {0}.svg (data {0}.json)\n", stem);
}

int analyze_bias_command(const AnalyzeBiasRequest& req) {
  const ResolvedCheckpoint resolved = checkpoint_file(req.checkpoint);
  const RestoredModel r = restore_model(resolved.path, req.overrides);
  const Config& config = r.header.config;
  fmt::print("checkpoint {}\n", describe(resolved));
  const int64_t length = config.data.max_len, distance = req.max_distance > 0 ? req.max_distance : 4 * length;
  const bool causal = objective_spec(config.train.objective).causal;  // attends to earlier tokens only
  if (config.model.interleaved_position.active())
    throw ConfigError(
        "model.interleaved_position: some layers take another encoding; analyze bias profiles "
        "models with one encoding");
  const BiasProfile profile = bias_profile(r.model->position_encoding(), r.model->parameters(),
                                           config.model.position.type, config.model.layers, length, distance, causal);
  fmt::print("{} bias, {} model, training length {}, distances up to {}\n", config.model.position.type,
             causal ? "causal" : "bidirectional", length, distance);
  print_profile(profile);
  if (!req.out.empty()) write_files(profile, config.model.position.type, resolved.path, req.out);
  return 0;
}

}  // namespace

Command add_analyze_bias_command(CLI::App& analyze) {
  auto req = std::make_shared<AnalyzeBiasRequest>();
  auto* b = analyze.add_subcommand(
      "bias", "An offset bias (t5_bias, alibi, alibi_directional, kerple, fire) against distance per head");
  add_checkpoint_argument(b, req->checkpoint);
  b->add_option("--max-distance", req->max_distance, "Farthest key distance (default 4 x the training length)")
      ->check(positive_number());
  b->add_option("--set", req->overrides, "Override a config key of the stored config");
  b->add_option("--out", req->out, "Directory for bias.json, bias.png and bias.svg");
  return {b, [req] { return analyze_bias_command(*req); }};
}

}  // namespace rotor

// `rotor inspect`: a checkpoint's step, best metric, model, classes, parameter
// table and stored config.
#include <fmt/core.h>

#include "models/position_encoding.h"
#include "storage/checkpoint.h"
#include "trainers/cli/checkpoint_argument.h"
#include "trainers/cli/command.h"
#include "trainers/training/training_checkpoint.h"

namespace rotor {
namespace {

int inspect_command(const std::string& given) {
  const ResolvedCheckpoint resolved = checkpoint_file(given);
  const std::string& checkpoint = resolved.path;
  const CheckpointContents c = read_checkpoint(checkpoint);
  const CheckpointHeader h = read_header(c, checkpoint);
  const ModelConfig& m = h.config.model;
  fmt::print("checkpoint  {}\n", describe(resolved));
  fmt::print("step        {} (epoch {}, {} batches into it)\n", h.state.step, h.state.sampler.epoch,
             h.state.sampler.cursor);
  fmt::print("best        {} = {:.6g} at step {}\n", h.config.train.best_metric, h.state.best_metric,
             h.state.best_step);
  std::string pos = m.position.type, keys;
  for (const PositionOption& o : position_encoding(m.position.type).options)
    keys += fmt::format("{}{} {}", keys.empty() ? "" : ", ", o.key, position_value_text(m.position.value(o.key)));
  if (!keys.empty()) pos += " (" + keys + ")";
  fmt::print("model       d_model {}, {} layers, {} heads, d_ff {}, {}-LN, {} pooling, {} attention\n", m.d_model,
             m.layers, m.heads, m.d_ff, option_name(m.norm), option_name(m.pooling), option_name(m.attention));
  fmt::print("position    {}\n", pos);
  fmt::print("classes     {}:", h.labels.size());
  for (const std::string& l : h.labels) fmt::print(" {}", l);
  fmt::print("\ntraining    {:.0f} s so far, {} threads\n\n", h.state.elapsed_s, h.threads);
  fmt::print("{:<44} {:<16} {:>12}\n", "parameter", "shape", "count");
  int64_t total = 0;
  for (const auto& [key, t] : c.tensors) {
    if (key.rfind("model/", 0) != 0) continue;
    fmt::print("{:<44} {:<16} {:>12}\n", key.substr(6), to_string(t.shape()), t.numel());
    total += t.numel();
  }
  fmt::print("{:<44} {:<16} {:>12}\n\nconfig:\n{}", "total", "", total, c.texts.at("config"));
  return 0;
}

}  // namespace

Command add_inspect_command(CLI::App& app) {
  auto checkpoint = std::make_shared<std::string>();
  auto* i = app.add_subcommand("inspect", "Show a checkpoint: config, step, metrics and parameter table");
  add_checkpoint_argument(i, *checkpoint);
  return {i, [checkpoint] { return inspect_command(*checkpoint); }};
}

}  // namespace rotor

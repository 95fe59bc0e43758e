// `rotor train`: the command line of one training run (trainers/training/trainer.h).
#include "trainers/cli/command.h"
#include "trainers/training/trainer.h"

namespace rotor {

Command add_train_command(CLI::App& app) {
  auto request = std::make_shared<TrainRequest>();
  auto* t = app.add_subcommand("train", "Train a model from a YAML config (resumable)");
  t->add_option("config", request->config_path, "YAML config file")->required()->check(CLI::ExistingFile);
  t->add_option("--set", request->overrides, "Override a config key, e.g. --set train.lr=1e-3 (repeatable)");
  t->add_option("--resume", request->resume,
                "auto (newest valid checkpoint of the run directory) or a checkpoint path");
  t->add_option("--out", request->out_dir, "Run directory (default: <run.out_dir>/<run.name>)");
  t->add_option("--stop-after", request->stop_after, "Checkpoint and exit once this many steps are done (resumable)")
      ->check(positive_number());
  t->add_flag("--allow-data-change", request->allow_data_change,
              "Resume even though a data file changed since the checkpoint (refused otherwise, naming the file)");
  return {t, [request] { return train(*request); }};
}

}  // namespace rotor

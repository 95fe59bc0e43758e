#include "trainers/cli/checkpoint_argument.h"

#include <vector>

#include "trainers/cli/command.h"
#include "trainers/training/training_checkpoint.h"

namespace rotor {

void add_checkpoint_argument(CLI::App* command, std::string& path) {
  command
      ->add_option("checkpoint", path,
                   "Checkpoint: a .h5 file, RUN/checkpoints/latest or best, or a run directory (its best checkpoint)")
      ->required()
      ->check(CLI::ExistingPath);
}

ResolvedCheckpoint checkpoint_file(const std::string& given) {
  std::vector<std::string> warnings;
  ResolvedCheckpoint r = resolve_training_checkpoint(given, &warnings);
  for (const std::string& w : warnings) print_warning(w);
  return r;
}

std::string describe(const ResolvedCheckpoint& r) { return r.how.empty() ? r.path : r.path + " (" + r.how + ")"; }

}  // namespace rotor

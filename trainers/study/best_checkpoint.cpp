#include "trainers/study/best_checkpoint.h"

#include "trainers/run/run_directory.h"
#include "trainers/training/restored_model.h"

namespace rotor {

BestCheckpoint open_best_checkpoint(const std::string& run_dir) {
  BestCheckpoint best;
  best.path = RunDirectory(run_dir).best_checkpoint_path();
  const RestoredModel probe = restore_model(best.path);
  LoadOptions options;
  options.tokenizer = probe.header.tokenizer;
  options.labels = probe.header.labels;
  best.training_length = probe.header.config.data.max_len;
  best.data = load_dataset(probe.header.config.data, options);
  return best;
}

}  // namespace rotor

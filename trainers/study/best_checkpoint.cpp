#include "trainers/study/best_checkpoint.h"

#include <filesystem>

#include "storage/checkpoint_directory.h"
#include "trainers/study/study_files.h"
#include "trainers/training/restored_model.h"

namespace rotor {

BestCheckpoint open_best_checkpoint(const std::string& run_dir) {
  const nlohmann::json summary = read_json_file((std::filesystem::path(run_dir) / "summary.json").string());
  BestCheckpoint best;
  best.path = CheckpointDirectory(run_dir).path_for_step(summary.at("best_step").get<int64_t>());
  const RestoredModel probe = restore_model(best.path);
  LoadOptions options;
  options.tokenizer = probe.header.tokenizer;
  options.labels = probe.header.labels;
  best.training_length = probe.header.config.data.max_len;
  best.data = load_dataset(probe.header.config.data, options);
  return best;
}

}  // namespace rotor

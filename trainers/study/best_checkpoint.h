#pragma once
// The best checkpoint of a finished run (its summary's best_step) and the
// data it was trained on, with its own tokenizer and labels: what a run's
// post-training analyses (length sweep, attention usage) evaluate.
#include <string>

#include "datasets/dataset.h"

namespace rotor {

struct BestCheckpoint {
  std::string path;             // RUN/checkpoints/step-<best>.h5
  int64_t training_length = 0;  // data.max_len of the run
  Dataset data;
};

BestCheckpoint open_best_checkpoint(const std::string& run_dir);

}  // namespace rotor

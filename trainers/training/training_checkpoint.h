#pragma once
// What a training checkpoint holds and under which keys (see docs/guide/checkpoints.md,
// "Layout"): the resolved config, tokenizer and labels, every
// parameter, the optimizer state, and the TrainingState.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "datasets/dataset.h"
#include "engine/optim/optimizer.h"
#include "models/model.h"
#include "storage/checkpoint.h"
#include "storage/checkpoint_directory.h"
#include "trainers/config/config.h"
#include "trainers/training/training_state.h"

namespace rotor {

CheckpointContents snapshot(const Config& config, const Dataset& data, const Model& model, const Optimizer& optimizer,
                            const TrainingState& state);

// The parts of a checkpoint needed before the model exists.
struct CheckpointHeader {
  Config config;                                      // the stored config with the overrides applied
  ModelConfig trained_model;                          // the model as it was trained (before the overrides)
  std::string tokenizer;                              // Tokenizer::save() bytes
  std::shared_ptr<const Tokenizer> loaded_tokenizer;  // those bytes loaded (once: the dimensions need it)
  std::vector<std::string> labels;                    // class names by index
  TrainingState state;
  int64_t threads = 0;
  // The data files it was trained on (data/sources); nullopt in checkpoints
  // written before rotor recorded them, empty for a generated task.
  std::optional<std::vector<SourceFingerprint>> data_sources;
};
// The stored config is parsed once, with `overrides` (`--set key=value`)
// applied; a stored config that does not parse is a CheckpointError.
CheckpointHeader read_header(const CheckpointContents& contents, const std::string& path,
                             const std::vector<std::string>& overrides = {});

// Copies every parameter; throws CheckpointError naming a missing or
// mis-shaped one.
void load_parameters(const CheckpointContents& contents, const std::string& path, Model& model);
void load_optimizer(const CheckpointContents& contents, const std::string& path, Optimizer& optimizer);

// The step `checkpoint` records as its run's best on validation so far
// (state/best_step; -1: none yet). Reads and verifies the whole file.
int64_t recorded_best_step(const std::string& checkpoint);

// resolve_checkpoint with training checkpoints' records: a run directory means
// the best checkpoint its newest checkpoint records, whatever `best` says.
ResolvedCheckpoint resolve_training_checkpoint(const std::string& given, std::vector<std::string>* warnings);

}  // namespace rotor

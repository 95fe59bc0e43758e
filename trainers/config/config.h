#pragma once
// The whole run configuration: one struct per YAML section. Defaults live in
// the member initialisers; keys, types and help text are declared once in
// config_schema.cpp; loading, merging and validation are in config_loader.cpp.
#include <cstdint>
#include <string>

#include "datasets/dataset.h"
#include "engine/error.h"
#include "engine/optim/lr_schedule.h"
#include "engine/precision.h"
#include "models/model_config.h"
#include "trainers/config/config_options.h"

namespace rotor {

struct ConfigError : Error {
  using Error::Error;
};

struct RunConfig {
  std::string name = "run";  // the run directory is <out_dir>/<name>
  std::string out_dir = "runs";
  uint64_t seed = 42;   // parameter init and dropout (data order: data.seed)
  int64_t threads = 0;  // OpenMP threads; 0: all cores. Bit-exact resume needs the same count
  ProgressMode progress = ProgressMode::automatic;  // auto | bar | lines | none
  int64_t log_every = 20;                           // steps between training log events
  Precision precision = Precision::fp32;            // matrix-product inputs (engine/precision.h)
  // Gradient reduction across MPI ranks (trainers/distributed/reducer_options.h); neither changes results.
  bool mpi_overlap = true;                      // start bucket sums during the backward pass
  int64_t mpi_bucket_bytes = int64_t{4} << 20;  // bytes of whole parameters per bucket
};

struct TrainConfig {
  ObjectiveKind objective = ObjectiveKind::classify;
  OptimizerKind optimizer = OptimizerKind::adamw;
  double lr = 3e-4;
  double weight_decay = 0.01;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double momentum = 0.9;  // sgd
  LrSchedule::Kind schedule = LrSchedule::Kind::cosine;
  int64_t warmup_steps = 0;  // linear warm-up; longer than the run is an error
  double min_lr = 0.0;
  int64_t max_steps = 0;   // optimizer updates; 0: use max_epochs
  int64_t max_epochs = 0;  // 0: use max_steps
  int64_t grad_accumulation = 1;
  // Each batch is split into this many groups whose gradients are summed in
  // one fixed order; 0: one group per MPI rank (trainers/distributed/).
  int64_t gradient_groups = 0;
  double clip_norm = 1.0;  // 0: no clipping
  double label_smoothing = 0.0;
  double mask_probability = 0.15;  // mlm: of selecting a token (datasets/mlm_masking.h)
  int64_t eval_every = 0;          // steps; 0: at the end of every epoch
  int64_t checkpoint_every = 0;    // steps; 0: after every evaluation
  int64_t keep_last = 3;           // step checkpoints kept (the best is always kept too)
  // On val: a metric train.objective declares (objective_table.h); the loader sets the objective's default when unset.
  std::string best_metric = "accuracy";
  int64_t early_stopping_patience = 0;  // evaluations without improvement; 0: off
};

// model.init_from: a fine-tune's pre-trained encoder (trainers/training/pretrained_encoder.h).
// Not part of ModelConfig: the model is the same whether its encoder starts
// drawn or loaded; the trainer alone reads these, when a run starts.
struct InitFromConfig {
  std::string checkpoint;  // a checkpoint file or run directory; "": train from scratch
  std::string checksum;    // the source's content checksum; "": recorded when the run starts, else required
};

struct Config {
  RunConfig run;
  ModelConfig model;
  InitFromConfig init_from;
  DataConfig data;
  TrainConfig train;
};

}  // namespace rotor

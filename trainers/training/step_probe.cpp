#include "trainers/training/step_probe.h"

#include <chrono>

#include "datasets/dataset.h"
#include "engine/parallel.h"
#include "trainers/distributed/gradient_groups.h"
#include "trainers/distributed/single_process_communicator.h"
#include "trainers/training/data_dimensions.h"
#include "trainers/training/memory_estimate.h"
#include "trainers/training/objective.h"
#include "trainers/training/optimizer_factory.h"
#include "trainers/training/pretrained_encoder.h"
#include "trainers/training/run_compute_scope.h"
#include "trainers/training/run_length.h"
#include "trainers/training/train_step.h"

namespace rotor {
namespace {

// The micro-batches of one update, as the trainer draws them (a new epoch starts when one ends).
std::vector<Batch> next_update(Sampler& sampler, int64_t micro_batches) {
  std::vector<Batch> batches(static_cast<size_t>(micro_batches));
  for (Batch& batch : batches)
    if (!sampler.next(batch) && !sampler.next(batch))
      throw TrainingError("internal: the training split gives no batch to probe");
  return batches;
}

}  // namespace

StepProbe probe_training_step(const Config& config, int64_t steps) {
  Config c = config;
  const RunComputeScope compute(c.run);
  LoadOptions load;
  if (!c.init_from.checkpoint.empty()) load.tokenizer = read_pretrained_encoder(c).header.tokenizer;
  const Dataset data = load_dataset(c.data, load);
  set_data_dimensions(c.model, *data.tokenizer, data.labels.size());
  check_fits_in_memory(estimate_training_memory(c, weight_count(c.model)));
  SingleProcessCommunicator alone;
  c.train.gradient_groups = resolve_gradient_groups(c.train.gradient_groups, nullptr, 1, std::nullopt);
  const std::unique_ptr<Objective> objective = make_objective(c, data);
  objective->model().initialize(c.run.seed);
  const std::unique_ptr<Optimizer> optimizer = make_optimizer(c.train, objective->model().parameters());
  Sampler sampler = objective->training_sampler();
  TrainStep step(*objective, *optimizer, alone, c, reducer_options(c.run), "(a dry run writes no checkpoint)");
  const int64_t micro = c.train.grad_accumulation;
  step.run(next_update(sampler, micro), 0, 1, c.train.lr);  // warm-up: first-touch allocations, caches
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 1; i <= steps; ++i)
    step.run(next_update(sampler, micro), static_cast<uint64_t>(i * micro), i + 1, c.train.lr);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {seconds / static_cast<double>(steps), planned_steps(c.train, sampler.batches_in_epoch()), num_threads()};
}

}  // namespace rotor

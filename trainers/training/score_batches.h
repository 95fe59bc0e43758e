#pragma once
// The evaluation loop a language model's splits share (a token stream's windows,
// language_model_evaluation.h; a sequence task's samples, targeted_tokens.h):
// each batch of the sampler scored at its targets, the ranks sharing the batches
// (batch k on rank k mod N), a progress bar "eval <split>", and every batch
// gathered back in batch order, so the sums that follow are the single
// process's bits.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "datasets/sampler.h"
#include "models/language_model.h"
#include "trainers/distributed/scored_batches.h"
#include "trainers/training/evaluator.h"
#include "trainers/training/language_model_batch.h"

namespace rotor {

// How a batch is read (its inputs and targets) and how its scores travel to the other ranks.
struct BatchScoring {
  std::function<LanguageModelBatch(const Batch&)> targets;
  std::function<ScoredBatch(int64_t index, const Batch&, const TargetScores&)> packed;
};

// Every batch of `sampler` (in evaluation mode: no dropout, no gradient; a
// batch's index is its ForwardContext step, from which randomized_evaluation
// draws its positions), packed, in batch order on every rank.
std::vector<ScoredBatch> score_batches(LanguageModel& model, Sampler& sampler, const std::string& split,
                                       const BatchScoring& scoring, const EvalOptions& options);

}  // namespace rotor

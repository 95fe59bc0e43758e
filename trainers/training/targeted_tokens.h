#pragma once
// What train.objective transduction and completion share: a LanguageModel
// reads a sequence task's sample whole (datasets/tasks/sequence_layout.h) and
// predicts, at each targeted position, the token its layout puts there; the
// loss is the mean cross entropy over the targeted positions of the batch, and
// nothing else is scored. The objectives differ in their rows (the model: a
// bidirectional or a causal LanguageModel; the layout: queries or
// prompt_answer; the name of the per-sample score) and in their files
// (transduction_objective.cpp, completion_objective.cpp).
//
// A split's scores, under the names the row declares:
//   loss                              nats per targeted position
//   token_accuracy                    targeted positions whose argmax is the target
//   sequence_accuracy | exact_match   samples whose every targeted position is right
// The last is one measure under each paper's name: with the prompt_answer
// layout, all answer positions right is greedy decoding reproducing the answer.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "datasets/dataset.h"
#include "models/language_model.h"
#include "trainers/config/objective_table.h"
#include "trainers/run/metrics_events.h"
#include "trainers/training/evaluator.h"
#include "trainers/training/language_model_batch.h"
#include "trainers/training/objective.h"

namespace rotor {

// The batch as the model reads it: its tokens and positions as they are, its
// targets with kNoTarget as the loss's ignore index (kUnscoredTarget).
LanguageModelBatch targeted_batch(const Batch& batch);

// Per sample of a split, in split order: a study's unit of evidence
// (EvidenceUnit::sample).
struct SampleScores {
  std::vector<double> nats;      // summed over the sample's targeted positions
  std::vector<int64_t> targets;  // its targeted positions
  std::vector<int64_t> correct;  // those whose first largest logit is the target

  // Every targeted position right (a sample without one is not).
  bool right(size_t sample) const { return targets[sample] > 0 && correct[sample] == targets[sample]; }
};

// The split's totals under the names `spec` declares (see above); NaN where
// nothing was scored.
SplitScores targeted_scores(const SampleScores& samples, const ObjectiveSpec& spec);

struct TargetedEvaluation {
  SplitScores scores;
  SampleScores samples;
};

// Scores every sample of the split, each whole in one window of at most
// data.eval_max_len tokens (0: data.max_len); the split must have targets.
// Under mpirun the ranks share the batches and every rank gets the single
// process's bits.
TargetedEvaluation evaluate_targeted(LanguageModel& model, const TokenizedSplit& split, const DataConfig& data,
                                     const ObjectiveSpec& spec, const EvalOptions& options = {});

// The objective of `config`'s row over a sequence task's `data`.
std::unique_ptr<Objective> make_targeted_tokens(const Config& config, const Dataset& data);

}  // namespace rotor

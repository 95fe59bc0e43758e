#pragma once
// A restored checkpoint's scores on a split at one window length, whatever it
// was trained for: what `rotor eval` prints per --max-len, what `rotor
// predict` writes and what a study's length sweep records. The one place a
// restored model is evaluated: each function computes in the run's precision
// (run.precision, or the one --set asked for) with its thread count
// (run_compute_scope.h), whatever the calling thread's precision.
#include <cstdint>
#include <string>

#include "datasets/dataset.h"
#include "trainers/run/declared_scores.h"
#include "trainers/training/evaluator.h"
#include "trainers/training/language_model_evaluation.h"
#include "trainers/training/restored_model.h"
#include "trainers/training/targeted_tokens.h"

namespace rotor {

// At data.eval_max_len tokens: a classifier's scores over the split's
// documents (data.eval_windows), a language model's over every token of the
// split (a masked one: over its tokens selected by the fixed evaluation masks)
// in windows of that many inputs, `stride` new ones each (stride ==
// eval_max_len: non-overlapping), or a sequence-task model's over the split's
// samples (evaluate_targeted_at_length; stride does not apply). Throws CheckpointError naming `checkpoint`
// when the outputs are NaN or infinite.
SplitScores evaluate_at_length(const RestoredModel& r, const TokenizedSplit& split, const DataConfig& data,
                               int64_t stride, const std::string& checkpoint);

// A restored language model's evaluation at data.eval_max_len with its
// per-window sums (a study's length sweep pairs runs over them), scoring the
// split's first max_targets targets (0: all); the same checks as
// evaluate_at_length.
// A restored classifier's evaluation of the split's documents at
// data.eval_max_len (data.eval_windows), with its per-document scores;
// `command` names the caller when the checkpoint holds a language model
// (RestoredModel::classifier). Throws CheckpointError naming `checkpoint` when
// any document's logits are NaN or infinite.
Evaluation evaluate_classifier_at_length(const RestoredModel& r, const TokenizedSplit& split, const DataConfig& data,
                                         const std::string& command, const std::string& checkpoint,
                                         Progress::Style progress = Progress::Style::none);

// A restored sequence-task model's evaluation (train.objective transduction or
// completion) of every sample of the split, whole, in windows of at most
// data.eval_max_len tokens, with its per-sample scores; the same checks as
// evaluate_at_length.
TargetedEvaluation evaluate_targeted_at_length(const RestoredModel& r, const TokenizedSplit& split,
                                               const DataConfig& data, const std::string& checkpoint);

LanguageModelEvaluation evaluate_language_model_at_length(const RestoredModel& r, const TokenizedSplit& split,
                                                          const DataConfig& data, int64_t stride, int64_t max_targets,
                                                          const std::string& checkpoint);

}  // namespace rotor

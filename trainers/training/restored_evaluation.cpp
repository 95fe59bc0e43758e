#include "trainers/training/restored_evaluation.h"

#include <cmath>

#include "storage/checkpoint_error.h"
#include "trainers/training/run_compute_scope.h"

namespace rotor {
namespace {

void require_finite_loss(const SplitScores& scores, const std::string& checkpoint) {
  if (!scores.absent() && !std::isfinite(scores.get("loss")))  // absent: nothing scored, warned
    throw CheckpointError(checkpoint + ": the model's loss is " + std::to_string(scores.get("loss")) +
                          ": its weights hold NaN or infinite values (a damaged or forged checkpoint); no metrics "
                          "were written");
}

}  // namespace

TargetedEvaluation evaluate_targeted_at_length(const RestoredModel& r, const TokenizedSplit& split,
                                               const DataConfig& data, const std::string& checkpoint) {
  const EvalOptions options{Progress::style(r.header.config.run.progress)};
  const RunComputeScope compute(r.header.config.run);
  TargetedEvaluation e =
      evaluate_targeted(r.language_model(), split, data, objective_spec(r.header.config.train.objective), options);
  require_finite_loss(e.scores, checkpoint);
  return e;
}

LanguageModelEvaluation evaluate_language_model_at_length(const RestoredModel& r, const TokenizedSplit& split,
                                                          const DataConfig& data, int64_t stride, int64_t max_targets,
                                                          const std::string& checkpoint) {
  const EvalOptions options{Progress::style(r.header.config.run.progress)};
  const RunComputeScope compute(r.header.config.run);
  const TrainConfig& train = r.header.config.train;
  LanguageModelWindows windows{data.eval_max_len, stride, std::nullopt, max_targets};
  if (r.language_model().kind() == LanguageModelKind::masked)
    windows.masking = MaskingRule{train.mask_probability, static_cast<int32_t>(r.tokenizer->vocab_size())};
  LanguageModelEvaluation e =
      evaluate_language_model(r.language_model(), split, r.tokenizer->sep_id(), windows, data, options);
  e.scores = declared_scores(objective_spec(train.objective), e.scores);
  require_finite_loss(e.scores, checkpoint);
  return e;
}

Evaluation evaluate_classifier_at_length(const RestoredModel& r, const TokenizedSplit& split, const DataConfig& data,
                                         const std::string& command, const std::string& checkpoint,
                                         Progress::Style progress) {
  const RunComputeScope compute(r.header.config.run);
  Evaluation e = evaluate(r.classifier(command), split, data, {progress});
  require_finite_scores(e.scores, checkpoint);
  return e;
}

SplitScores evaluate_at_length(const RestoredModel& r, const TokenizedSplit& split, const DataConfig& data,
                               int64_t stride, const std::string& checkpoint) {
  if (objective_spec(r.header.config.train.objective).data == ObjectiveData::per_token_targets)
    return evaluate_targeted_at_length(r, split, data, checkpoint).scores;
  if (objective_spec(r.header.config.train.objective).data == ObjectiveData::token_stream)
    return evaluate_language_model_at_length(r, split, data, stride, 0, checkpoint).scores;
  const Progress::Style progress = Progress::style(r.header.config.run.progress);
  const Evaluation e = evaluate_classifier_at_length(r, split, data, "rotor eval", checkpoint, progress);
  return declared_scores(objective_spec(r.header.config.train.objective), e.metrics.scores());
}

}  // namespace rotor

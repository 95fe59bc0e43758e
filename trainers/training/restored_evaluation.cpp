#include "trainers/training/restored_evaluation.h"

#include <cmath>

#include "engine/precision.h"
#include "storage/checkpoint_error.h"
#include "trainers/training/evaluator.h"
#include "trainers/training/language_model_evaluation.h"

namespace rotor {

LanguageModelEvaluation evaluate_language_model_at_length(const RestoredModel& r, const TokenizedSplit& split,
                                                          const DataConfig& data, int64_t stride, int64_t max_targets,
                                                          const std::string& checkpoint) {
  const EvalOptions options{Progress::style(r.header.config.run.progress)};
  const PrecisionScope precision(r.header.config.run.precision);
  const TrainConfig& train = r.header.config.train;
  LanguageModelWindows windows{data.eval_max_len, stride, std::nullopt, max_targets};
  if (train.objective == ObjectiveKind::mlm)
    windows.masking = MaskingRule{train.mask_probability, static_cast<int32_t>(r.tokenizer->vocab_size())};
  LanguageModelEvaluation e =
      evaluate_language_model(r.language_model(), split, r.tokenizer->sep_id(), windows, data, options);
  if (!e.scores.absent() && !std::isfinite(e.scores.loss))  // absent: nothing scored, warned
    throw CheckpointError(checkpoint + ": the model's loss is " + std::to_string(e.scores.loss) +
                          ": its weights hold NaN or infinite values (a damaged or forged checkpoint); no metrics "
                          "were written");
  return e;
}

SplitScores evaluate_at_length(const RestoredModel& r, const TokenizedSplit& split, const DataConfig& data,
                               int64_t stride, const std::string& checkpoint) {
  if (r.header.config.train.objective != ObjectiveKind::classify)
    return evaluate_language_model_at_length(r, split, data, stride, 0, checkpoint).scores;
  const EvalOptions options{Progress::style(r.header.config.run.progress)};
  const PrecisionScope precision(r.header.config.run.precision);
  const Evaluation e = evaluate(r.classifier("rotor eval"), split, data, options);
  require_finite_scores(e.scores, checkpoint);
  return e.metrics.scores();
}

}  // namespace rotor

#include "trainers/training/score_batches.h"

#include "trainers/distributed/communicator.h"

namespace rotor {

std::vector<ScoredBatch> score_batches(LanguageModel& model, Sampler& sampler, const std::string& split,
                                       const BatchScoring& scoring, const EvalOptions& options) {
  Communicator& comm = world();
  Progress progress("eval " + split, sampler.batches_in_epoch(),
                    comm.is_root() ? options.progress : Progress::Style::none);
  EvalRate rate;
  NoGradGuard no_grad;
  ForwardContext ctx;  // training = false: no dropout
  std::vector<ScoredBatch> mine;
  Batch batch;
  for (int64_t index = 0; sampler.next(batch); ++index) {
    if (!scores_batch(comm, index)) continue;
    ctx.step = static_cast<uint64_t>(index);  // randomized_evaluation draws a batch's positions from it
    const LanguageModelBatch lm = scoring.targets(batch);
    mine.push_back(scoring.packed(index, batch, score_targets(model.logits(lm.input(), ctx).value(), lm.targets)));
    rate.add(batch);
    progress.update(index + 1, "", rate.tokens_per_s(), "tokens/s");
  }
  progress.finish(rate.summary());
  return gather_in_order(comm, std::move(mine));
}

}  // namespace rotor

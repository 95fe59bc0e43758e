#include "trainers/training/language_model_evaluation.h"

#include <fmt/format.h>

#include <limits>

#include "datasets/lm_windows.h"
#include "trainers/distributed/communicator.h"
#include "trainers/training/score_batches.h"

namespace rotor {

namespace {

// A scored batch as gather_in_order carries it: the batch's nats, count and
// correct, then each row's nats and count; doc_ids are the rows' windows.
ScoredBatch packed(int64_t index, const Batch& batch, const TargetScores& s) {
  ScoredBatch b{index, batch.doc_ids, {}, {s.nats, static_cast<double>(s.count), static_cast<double>(s.correct)}};
  for (size_t r = 0; r < s.row_nats.size(); ++r) {
    b.logits.push_back(s.row_nats[r]);
    b.logits.push_back(static_cast<double>(s.row_count[r]));
  }
  return b;
}

// A split too short for its masks (or a tiny train.mask_probability) scores nothing:
// its metrics are absent, and saying so beats a loss of 0 that reads as perfect.
void warn_nothing_scored(const TokenizedSplit& split, const LanguageModelWindows& windows) {
  const std::string why =
      windows.masking ? fmt::format("none of its {} tokens was selected for masking (train.mask_probability {})",
                                    split.tokens.size(), windows.masking->probability)
                      : fmt::format("its {} tokens leave no token to predict", split.tokens.size());
  fmt::print(stderr,
             "warning: split '{}' scored no token at length {}: {}; its loss, perplexity and accuracy are absent "
             "(null), not 0\n",
             split.name, windows.length, why);
}

}  // namespace

LanguageModelEvaluation evaluate_language_model(LanguageModel& model, const TokenizedSplit& split, int32_t separator,
                                                const LanguageModelWindows& windows, const DataConfig& data,
                                                const EvalOptions& options) {
  const StreamWindows cut =
      lm_windows(split, separator, windows.length, windows.stride, data.lm_blocks, windows.max_targets);
  const TokenizedSplit& blocks = cut.windows;
  WindowConfig one_window;  // each block whole: inputs and the target after the last
  one_window.max_len = windows.length + 1;
  one_window.random_train_windows = false;
  Sampler sampler(blocks, one_window, eval_batch_config(data, windows.length), data.seed, SamplerMode::eval);
  const BatchScoring scoring{[&](const Batch& batch) {
                               return windows.masking
                                          ? masked_language_model_batch(batch, {evaluation_mask_key(data.data_seed),
                                                                                *windows.masking, &cut.starts})
                                          : language_model_batch(batch);
                             },
                             packed};
  const std::vector<ScoredBatch> scored = score_batches(model, sampler, split.name, scoring, options);
  double nats = 0.0, count = 0.0, correct = 0.0;
  LanguageModelEvaluation out;
  out.window_nats.assign(static_cast<size_t>(blocks.num_docs()), 0.0);
  out.window_tokens.assign(static_cast<size_t>(blocks.num_docs()), 0);
  for (const ScoredBatch& b : scored) {
    nats += b.logits[0];
    count += b.logits[1];
    correct += b.logits[2];
    for (size_t r = 0; r < b.doc_ids.size(); ++r) {
      out.window_nats[b.doc_ids[r]] += b.logits[3 + 2 * r];
      out.window_tokens[b.doc_ids[r]] += static_cast<int64_t>(b.logits[4 + 2 * r]);
    }
  }
  const double none = std::numeric_limits<double>::quiet_NaN();
  out.scores = {{"loss", count > 0 ? nats / count : none}, {"accuracy", count > 0 ? correct / count : none}};
  if (count == 0 && world().is_root()) warn_nothing_scored(split, windows);
  return out;
}

}  // namespace rotor

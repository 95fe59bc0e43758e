#pragma once
// Scoring a language model on a split: its documents joined into one token
// stream (each followed by SEP, datasets/lm_windows.h) and cut into windows of
// `length` inputs (within each document with data.lm_blocks: document). With stride == length the windows do not
// overlap and a token's context is whatever precedes it in its window; with stride < length (a sliding window, as the
// length-extrapolation papers evaluate) every window after the first scores only its last `stride` targets, so each
// token is scored once with at least length - stride tokens of context. Under mpirun the ranks share the batches and
// sum in batch order: every rank gets the single process's bits.
#include <cstdint>
#include <optional>
#include <vector>

#include "datasets/dataset.h"
#include "datasets/mlm_masking.h"
#include "models/language_model.h"
#include "trainers/run/metrics_events.h"
#include "trainers/training/evaluator.h"

namespace rotor {

struct LanguageModelWindows {
  int64_t length = 0;  // inputs per window
  int64_t stride = 0;  // new targets per window; == length: non-overlapping
  // A masked language model: the stream corrupted by BERT's rule with the fixed
  // evaluation_mask_key(data.data_seed): the same tokens at every length and stride, and in
  // every run of a study (its seeds change data.seed, the training order, not data.data_seed).
  std::optional<MaskingRule> masking;
  int64_t max_targets = 0;  // > 0: only the split's first max_targets targets (lm_windows)
};

// The split's measured scores (loss, accuracy; declared_scores() adds what the
// objective's row derives from them) and, per window in stream order, the nats and the count
// of the tokens it scores: a study pairs runs window by window (the windows of
// one length are the same for every model).
struct LanguageModelEvaluation {
  SplitScores scores;
  std::vector<double> window_nats;
  std::vector<int64_t> window_tokens;
};

// Loss (nats per scored token) and token accuracy over every
// token of the split but the first (causal), or over its selected tokens
// (masked). Batches as data.batch_size / batch_tokens say.
LanguageModelEvaluation evaluate_language_model(LanguageModel& model, const TokenizedSplit& split, int32_t separator,
                                                const LanguageModelWindows& windows, const DataConfig& data,
                                                const EvalOptions& options = {});

}  // namespace rotor

#pragma once
// A batch of language-model windows (datasets/lm_windows.h) as the model sees
// it: window b holds lengths[b] tokens; its first lengths[b] - 1 are the
// inputs and input slot t's target is token t + 1. The window's first
// labels[b] targets are context only (a sliding evaluation scores each token
// once), and they and the padding get the target -100, which the loss skips.
#include <cstdint>
#include <vector>

#include "datasets/batch.h"
#include "datasets/mlm_masking.h"
#include "engine/tensor.h"
#include "models/encoder_classifier.h"
#include "models/forward_context.h"
#include "models/language_model.h"
#include "trainers/training/objective.h"

namespace rotor {

constexpr int32_t kUnscoredTarget = -100;  // the engine's cross_entropy ignore_index

struct LanguageModelBatch {
  int64_t batch = 0, seq_len = 0;
  std::vector<int32_t> tokens;     // [batch * seq_len] inputs, padded with 0
  std::vector<int32_t> lengths;    // [batch] inputs per row
  std::vector<int32_t> targets;    // [batch * seq_len]: the next token, or kUnscoredTarget
  std::vector<int32_t> positions;  // [batch * seq_len] the data's positions (coupled); empty: none
  int64_t scored = 0;              // targets that are not kUnscoredTarget

  ModelInput input() const { return {tokens, lengths, batch, seq_len, positions.empty() ? nullptr : &positions}; }
};

LanguageModelBatch language_model_batch(const Batch& windows);

// A masked language model's view of the same windows (datasets/mlm_masking.h):
// the same inputs, corrupted by BERT's rule, and as targets the selected
// tokens only. Window b starts at stream position (*starts)[doc_ids[b]]
// (StreamWindows of datasets/lm_windows.h), so a token's mask is keyed by its
// place in the split's stream. Its first labels[b] slots are context a previous
// window scored: corrupted alike, never scored.
struct StreamMasking {
  RandomKey key;
  MaskingRule rule;
  const std::vector<int64_t>* starts = nullptr;
};
LanguageModelBatch masked_language_model_batch(const Batch& windows, const StreamMasking& masking);

// Sums over the scored targets of one forward.
struct TargetScores {
  double nats = 0.0;  // -log p(target), summed
  int64_t count = 0;
  int64_t correct = 0;  // targets that are the first largest logit
  // The same nats and counts per batch row (window), each summed in position order.
  std::vector<double> row_nats;
  std::vector<int64_t> row_count;
  std::vector<int64_t> row_correct;
};

// logits: [batch, seq_len, vocab], float or double; targets as above.
TargetScores score_targets(const Tensor& logits, const std::vector<int32_t>& targets);
// TargetScores::correct alone, without the log-likelihood: what a training step counts (its loss is the op's).
int64_t correct_targets(const Tensor& logits, const std::vector<int32_t>& targets);

// The training loss of a language-model batch (every objective that scores tokens: clm, mlm, transduction,
// completion), with its scored terms, right argmaxes and real tokens.
BatchLoss language_model_loss(const LanguageModel& model, const LanguageModelBatch& lm, ForwardContext& ctx);

}  // namespace rotor

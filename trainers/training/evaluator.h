#pragma once
// Scoring a split: what training's evaluations, `rotor eval`, `rotor predict`
// and the study's length sweep all do. The model runs without gradients over
// the split's evaluation windows (data.eval_max_len, data.eval_windows); a
// document seen through several windows (eval_windows: all) is scored by the
// mean of its windows' logits. Under mpirun the ranks share the batches and
// gather the scores back in batch order (trainers/distributed/), so every
// rank gets the single process's bits.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "datasets/batch.h"
#include "datasets/dataset.h"
#include "models/encoder_classifier.h"
#include "trainers/training/classification_metrics.h"
#include "trainers/training/progress.h"

namespace rotor {

struct DocumentScores {
  std::vector<std::vector<double>> logits;  // per document: mean logits over its windows
  std::vector<int32_t> labels;
};

struct EvalOptions {
  // A progress line "eval <split>" in input tokens/s (rank 0's own batches), on rank 0 only.
  Progress::Style progress = Progress::Style::none;
};

// What an evaluation's progress line reports: real (non-padding) input tokens
// per second since it started, over the batches this rank scored.
struct EvalRate {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  int64_t tokens = 0;
  void add(const Batch& batch);
  double tokens_per_s() const;
  std::string summary() const;  // "N input tokens in S s, R tokens/s"
};

struct Evaluation {
  DocumentScores scores;          // per document of the split, in split order
  ClassificationMetrics metrics;  // over the labelled documents
};

Evaluation evaluate(EncoderClassifier& model, const TokenizedSplit& split, const DataConfig& data,
                    const EvalOptions& options = {});

ClassificationMetrics metrics_of(const DocumentScores& scores, int32_t num_classes);
// Throws CheckpointError naming `checkpoint` when any document's logits are
// NaN or infinite: the weights are (NaN, infinite weights give no usable
// scores), and metrics from them would be noise presented as a result.
void require_finite_scores(const DocumentScores& scores, const std::string& checkpoint);
// Softmax of one logits row.
std::vector<double> probabilities(const std::vector<double>& logits);
// The class with the largest logit (the first of equal ones).
int32_t predicted_class(const std::vector<double>& logits);
// predicted_class of every document; -1 for a document the sampler never served.
std::vector<int32_t> predicted_classes(const DocumentScores& scores);

}  // namespace rotor

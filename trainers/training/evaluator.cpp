#include "trainers/training/evaluator.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/core.h>

#include "engine/argmax.h"
#include "storage/checkpoint_error.h"
#include "trainers/distributed/communicator.h"
#include "trainers/distributed/scored_batches.h"
#include "trainers/training/batch_input.h"

namespace rotor {
namespace {

// `on_batch(done, batch)` reports progress after each batch this rank scores
// (done: batches of the epoch up to it, scored by any rank).
DocumentScores score_documents(EncoderClassifier& model, Sampler& sampler, int64_t num_docs,
                               const std::function<void(int64_t, const Batch&)>& on_batch) {
  const int64_t C = model.config().num_classes;
  DocumentScores s;
  s.logits.assign(static_cast<size_t>(num_docs), std::vector<double>(static_cast<size_t>(C), 0.0));
  s.labels.assign(static_cast<size_t>(num_docs), -1);
  std::vector<int64_t> windows(static_cast<size_t>(num_docs), 0);
  NoGradGuard no_grad;
  ForwardContext ctx;  // training = false: no dropout
  sampler.restore({sampler.state().epoch, 0});
  // Under MPI each rank scores every N-th batch; the batches are gathered
  // back in order so the sums below are the same on any number of ranks.
  Communicator& comm = world();
  std::vector<ScoredBatch> scored;
  Batch batch;
  for (int64_t index = 0; sampler.next(batch); ++index) {
    if (!scores_batch(comm, index)) continue;
    ctx.step = static_cast<uint64_t>(index);  // randomized_evaluation draws a batch's positions from it
    const Tensor logits = model.logits(batch_input(batch), ctx).value();
    scored.push_back({index, batch.doc_ids, batch.labels, logits.to_doubles()});
    on_batch(index + 1, batch);
  }
  for (const ScoredBatch& b : gather_in_order(comm, std::move(scored))) {
    for (size_t r = 0; r < b.doc_ids.size(); ++r) {
      const int64_t doc = b.doc_ids[r];
      for (int64_t c = 0; c < C; ++c) s.logits[doc][c] += b.logits[r * C + c];
      s.labels[doc] = b.labels[r];
      ++windows[doc];
    }
  }
  for (int64_t d = 0; d < num_docs; ++d)
    for (double& v : s.logits[d]) v /= static_cast<double>(std::max<int64_t>(1, windows[d]));
  return s;
}

}  // namespace

void EvalRate::add(const Batch& batch) {
  for (const int32_t n : batch.lengths) tokens += n;
}

double EvalRate::tokens_per_s() const {
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return dt > 0 ? static_cast<double>(tokens) / dt : 0.0;
}

std::string EvalRate::summary() const {
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return fmt::format("{} input tokens in {:.1f} s, {:.0f} tokens/s", tokens, dt, tokens_per_s());
}

Evaluation evaluate(EncoderClassifier& model, const TokenizedSplit& split, const DataConfig& data,
                    const EvalOptions& options) {
  Sampler sampler = make_eval_sampler(split, data);
  // Under mpirun every rank scores a share of the batches; rank 0 reports.
  Progress progress("eval " + split.name, sampler.batches_in_epoch(),
                    world().is_root() ? options.progress : Progress::Style::none);
  EvalRate rate;
  Evaluation e;
  e.scores = score_documents(model, sampler, split.num_docs(), [&](int64_t done, const Batch& batch) {
    rate.add(batch);
    progress.update(done, "", rate.tokens_per_s(), "tokens/s");
  });
  progress.finish(rate.summary());
  e.metrics = metrics_of(e.scores, model.config().num_classes);
  return e;
}

std::vector<double> probabilities(const std::vector<double>& logits) {
  const double m = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(logits.size());
  double sum = 0.0;
  for (size_t i = 0; i < p.size(); ++i) sum += (p[i] = std::exp(logits[i] - m));
  for (double& v : p) v /= sum;
  return p;
}

int32_t predicted_class(const std::vector<double>& logits) {
  return static_cast<int32_t>(argmax(logits.data(), logits.size()));
}

std::vector<int32_t> predicted_classes(const DocumentScores& s) {
  std::vector<int32_t> out(s.logits.size(), -1);
  for (size_t d = 0; d < s.logits.size(); ++d)
    if (s.labels[d] >= 0) out[d] = predicted_class(s.logits[d]);
  return out;
}

ClassificationMetrics metrics_of(const DocumentScores& s, int32_t num_classes) {
  MetricsAccumulator acc(num_classes);
  for (size_t d = 0; d < s.logits.size(); ++d) {
    if (s.labels[d] < 0) continue;  // a document the sampler never served
    const std::vector<double> p = probabilities(s.logits[d]);
    acc.add(s.labels[d], predicted_class(s.logits[d]),
            -std::log(std::max(p[static_cast<size_t>(s.labels[d])], 1e-300)));
  }
  return acc.result();
}

void require_finite_scores(const DocumentScores& s, const std::string& checkpoint) {
  int64_t bad = 0, scored = 0;
  for (size_t d = 0; d < s.logits.size(); ++d) {
    if (s.labels[d] < 0) continue;  // never served
    ++scored;
    bad += std::any_of(s.logits[d].begin(), s.logits[d].end(), [](double v) { return !std::isfinite(v); });
  }
  if (bad > 0) {
    throw CheckpointError(checkpoint + ": the model's outputs are NaN or infinite for " + std::to_string(bad) + " of " +
                          std::to_string(scored) +
                          " documents: its weights hold NaN or infinite values (a damaged or forged checkpoint); no "
                          "metrics were written");
  }
}

}  // namespace rotor

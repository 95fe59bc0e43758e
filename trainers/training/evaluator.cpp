#include "trainers/training/evaluator.h"

#include <algorithm>
#include <cmath>

namespace rotor {

DocumentScores score_documents(EncoderClassifier& model, Sampler& sampler, int64_t num_docs,
                               const std::function<void(int64_t, int64_t)>& on_batch) {
  const int64_t C = model.config().num_classes;
  DocumentScores s;
  s.logits.assign(static_cast<size_t>(num_docs), std::vector<double>(static_cast<size_t>(C), 0.0));
  s.labels.assign(static_cast<size_t>(num_docs), -1);
  std::vector<int64_t> windows(static_cast<size_t>(num_docs), 0);
  NoGradGuard no_grad;
  ForwardContext ctx;  // training = false: no dropout
  sampler.restore({sampler.state().epoch, 0});
  const int64_t total = sampler.batches_in_epoch();
  Batch batch;
  for (int64_t done = 0; sampler.next(batch);) {
    const Tensor logits = model.logits({batch.tokens, batch.lengths, batch.batch_size, batch.seq_len}, ctx).value();
    const std::vector<double> values = logits.to_doubles();
    for (int64_t b = 0; b < batch.batch_size; ++b) {
      const int64_t doc = batch.doc_ids[b];
      for (int64_t c = 0; c < C; ++c) s.logits[doc][c] += values[b * C + c];
      s.labels[doc] = batch.labels[b];
      ++windows[doc];
    }
    if (on_batch) on_batch(++done, total);
  }
  for (int64_t d = 0; d < num_docs; ++d)
    for (double& v : s.logits[d]) v /= static_cast<double>(std::max<int64_t>(1, windows[d]));
  return s;
}

std::vector<double> probabilities(const std::vector<double>& logits) {
  const double m = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(logits.size());
  double sum = 0.0;
  for (size_t i = 0; i < p.size(); ++i) sum += (p[i] = std::exp(logits[i] - m));
  for (double& v : p) v /= sum;
  return p;
}

ClassificationMetrics metrics_of(const DocumentScores& s, int32_t num_classes) {
  MetricsAccumulator acc(num_classes);
  for (size_t d = 0; d < s.logits.size(); ++d) {
    if (s.labels[d] < 0) continue;  // a document the sampler never served
    const std::vector<double> p = probabilities(s.logits[d]);
    const int32_t predicted = static_cast<int32_t>(std::max_element(p.begin(), p.end()) - p.begin());
    acc.add(s.labels[d], predicted, -std::log(std::max(p[static_cast<size_t>(s.labels[d])], 1e-300)));
  }
  return acc.result();
}

}  // namespace rotor

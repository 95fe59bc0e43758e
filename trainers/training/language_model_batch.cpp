#include "trainers/training/language_model_batch.h"

#include <algorithm>
#include <cmath>

#include "engine/argmax.h"

namespace rotor {

LanguageModelBatch language_model_batch(const Batch& w) {
  LanguageModelBatch b;
  b.batch = w.batch_size;
  b.seq_len = std::max<int64_t>(1, w.seq_len - 1);
  const size_t cells = static_cast<size_t>(b.batch * b.seq_len);
  b.tokens.assign(cells, 0);
  b.targets.assign(cells, kUnscoredTarget);
  b.lengths.assign(static_cast<size_t>(b.batch), 0);
  for (int64_t r = 0; r < b.batch; ++r) {
    const int32_t* row = w.tokens.data() + r * w.seq_len;
    const int32_t inputs = std::max(0, w.lengths[r] - 1);
    b.lengths[r] = inputs;
    for (int32_t t = 0; t < inputs; ++t) {
      b.tokens[r * b.seq_len + t] = row[t];
      if (t < w.labels[r]) continue;  // context only
      b.targets[r * b.seq_len + t] = row[t + 1];
      ++b.scored;
    }
  }
  return b;
}

LanguageModelBatch masked_language_model_batch(const Batch& w, const StreamMasking& masking) {
  LanguageModelBatch b = language_model_batch(w);
  b.scored = 0;
  for (int64_t r = 0; r < b.batch; ++r) {
    const auto first = static_cast<uint64_t>(masking.starts->at(static_cast<size_t>(w.doc_ids[r])));
    for (int32_t t = 0; t < b.lengths[r]; ++t) {
      int32_t& token = b.tokens[r * b.seq_len + t];
      int32_t& target = b.targets[r * b.seq_len + t];
      const MaskDecision d = mask_decision(masking.key, first + static_cast<uint64_t>(t), token, masking.rule);
      const bool scored = d.selected && t >= w.labels[r];
      target = scored ? token : kUnscoredTarget;
      token = d.input;
      b.scored += scored;
    }
  }
  return b;
}

namespace {

template <class T>
TargetScores score_rows(const T* logits, int64_t batch, int64_t vocab, const std::vector<int32_t>& targets) {
  TargetScores s;
  s.row_nats.assign(static_cast<size_t>(batch), 0.0);
  s.row_count.assign(static_cast<size_t>(batch), 0);
  s.row_correct.assign(static_cast<size_t>(batch), 0);
  const size_t seq_len = batch > 0 ? targets.size() / static_cast<size_t>(batch) : 1;
  for (size_t row = 0; row < targets.size(); ++row) {
    const int32_t target = targets[row];
    if (target == kUnscoredTarget) continue;
    const T* l = logits + static_cast<int64_t>(row) * vocab;
    // log p(target) = l[target] - max - log(sum exp(l - max)), in double.
    const double m = static_cast<double>(*std::max_element(l, l + vocab));
    double sum = 0.0;
    for (int64_t v = 0; v < vocab; ++v) sum += std::exp(static_cast<double>(l[v]) - m);
    const double nats = m + std::log(sum) - static_cast<double>(l[target]);
    s.nats += nats;  // the total in target order, as before per-row sums existed
    s.row_nats[row / seq_len] += nats;
    ++s.row_count[row / seq_len];
    const bool correct = argmax(l, static_cast<size_t>(vocab)) == target;
    s.correct += correct;
    s.row_correct[row / seq_len] += correct;
    ++s.count;
  }
  return s;
}

template <class T>
int64_t correct_rows(const T* logits, int64_t vocab, const std::vector<int32_t>& targets) {
  int64_t correct = 0;
  for (size_t row = 0; row < targets.size(); ++row)
    if (targets[row] != kUnscoredTarget)
      correct += argmax(logits + static_cast<int64_t>(row) * vocab, static_cast<size_t>(vocab)) == targets[row];
  return correct;
}

}  // namespace

int64_t correct_targets(const Tensor& logits, const std::vector<int32_t>& targets) {
  const int64_t vocab = logits.size(-1);
  if (logits.dtype() == DType::F64) return correct_rows(logits.data<double>(), vocab, targets);
  return correct_rows(logits.data<float>(), vocab, targets);
}

TargetScores score_targets(const Tensor& logits, const std::vector<int32_t>& targets) {
  const int64_t vocab = logits.size(-1), batch = logits.size(0);
  if (logits.dtype() == DType::F64) return score_rows(logits.data<double>(), batch, vocab, targets);
  return score_rows(logits.data<float>(), batch, vocab, targets);
}

BatchLoss language_model_loss(const LanguageModel& model, const LanguageModelBatch& lm, ForwardContext& ctx) {
  const Var logits = model.logits(lm.input(), ctx);
  BatchLoss out;
  out.loss = model.loss(logits, lm.targets);
  out.terms = lm.scored;
  out.correct = correct_targets(logits.value(), lm.targets);
  for (const int32_t n : lm.lengths) out.tokens += n;
  return out;
}

}  // namespace rotor

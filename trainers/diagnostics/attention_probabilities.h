#pragma once
// Attention probabilities of a trained model, which the fused kernel never
// forms: a forward run with an AttentionRecorder keeps each softmax layer's
// logit inputs (models/attention_capture.h), and for_each_probability_row
// recomputes the probabilities from them row by row with the fused kernel's
// own score computation (engine/kernels/attention_rows.h), in the precision
// the run trained in. O(N) memory per row.
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "engine/precision.h"
#include "models/forward_context.h"

namespace rotor {

// Keeps the logit inputs of every softmax layer of the forwards it watches (the last forward's per layer).
class AttentionRecorder : public AttentionCapture {
 public:
  void capture(const AttentionLogitInputs& inputs) override { layers_[inputs.layer] = inputs; }
  // Throws Error when the forward recorded no such layer (linear attention records none).
  const AttentionLogitInputs& layer(int64_t layer) const;
  bool empty() const { return layers_.empty(); }

 private:
  std::map<int64_t, AttentionLogitInputs> layers_;
};

// visit(i, p) for every valid query row i (< key_lengths[b]) of head h of batch row b, in order, where
// p[0, N) are the row's probabilities over the keys (0 for keys it does not attend).
using ProbabilityRowVisitor = std::function<void(int64_t query, const std::vector<double>& probabilities)>;
void for_each_probability_row(const AttentionLogitInputs& layer, Precision precision, int64_t b, int64_t h,
                              const ProbabilityRowVisitor& visit);

}  // namespace rotor

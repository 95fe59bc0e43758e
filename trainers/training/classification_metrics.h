#pragma once
// Accuracy, macro-F1 and mean loss of a classifier over a set of documents.
#include <cstdint>
#include <vector>

#include "trainers/run/metrics_events.h"

namespace rotor {

struct ClassificationMetrics {
  double loss = 0.0;
  double accuracy = 0.0;
  double macro_f1 = 0.0;  // mean F1 over the classes present in labels or predictions
  int64_t count = 0;

  SplitScores scores() const { return {{"accuracy", accuracy}, {"macro_f1", macro_f1}, {"loss", loss}}; }
};

class MetricsAccumulator {
 public:
  explicit MetricsAccumulator(int32_t num_classes)
      : confusion_(static_cast<size_t>(num_classes * num_classes), 0), classes_(num_classes) {}
  void add(int32_t label, int32_t predicted, double loss);
  ClassificationMetrics result() const;

 private:
  std::vector<int64_t> confusion_;  // [label][predicted]
  int32_t classes_;
  double loss_sum_ = 0.0;
  int64_t count_ = 0;
};

}  // namespace rotor

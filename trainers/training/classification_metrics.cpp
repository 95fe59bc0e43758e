#include "trainers/training/classification_metrics.h"

namespace rotor {

void MetricsAccumulator::add(int32_t label, int32_t predicted, double loss) {
  ++confusion_[static_cast<size_t>(label * classes_ + predicted)];
  loss_sum_ += loss;
  ++count_;
}

ClassificationMetrics MetricsAccumulator::result() const {
  ClassificationMetrics m;
  m.count = count_;
  if (count_ == 0) return m;
  m.loss = loss_sum_ / static_cast<double>(count_);
  int64_t correct = 0;
  double f1_sum = 0.0;
  int present = 0;
  for (int32_t c = 0; c < classes_; ++c) {
    int64_t tp = confusion_[static_cast<size_t>(c * classes_ + c)], actual = 0, predicted = 0;
    for (int32_t o = 0; o < classes_; ++o) {
      actual += confusion_[static_cast<size_t>(c * classes_ + o)];
      predicted += confusion_[static_cast<size_t>(o * classes_ + c)];
    }
    correct += tp;
    if (actual + predicted == 0) continue;  // class absent from both: not averaged (as sklearn)
    ++present;
    f1_sum += 2.0 * static_cast<double>(tp) / static_cast<double>(actual + predicted);
  }
  m.accuracy = static_cast<double>(correct) / static_cast<double>(count_);
  m.macro_f1 = present ? f1_sum / present : 0.0;
  return m;
}

}  // namespace rotor

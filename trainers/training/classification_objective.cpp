// train.objective classify: an EncoderClassifier labels each window of a
// document; cross entropy on the label, accuracy and macro-F1 over documents.
#include <fmt/format.h>

#include "engine/argmax.h"
#include "models/encoder_classifier.h"
#include "trainers/training/batch_input.h"
#include "trainers/training/evaluator.h"
#include "trainers/training/objective.h"

namespace rotor {
namespace {

class Classification : public Objective {
 public:
  Classification(const Config& config, const Dataset& data)
      : model_(make_head<EncoderClassifier>(config)),
        data_(data),
        config_(config.data),
        label_smoothing_(config.train.label_smoothing) {}

  Model& model() override { return *model_; }
  Sampler training_sampler() const override { return make_sampler(data_, config_, "train"); }
  int64_t loss_terms(const Batch& batch) const override { return batch.batch_size; }

  BatchLoss forward(const Batch& batch, ForwardContext& ctx) const override {
    BatchLoss out;
    const Var logits = model_->logits(batch_input(batch), ctx);
    out.loss = model_->loss(logits, batch.labels, label_smoothing_);
    out.terms = batch.batch_size;
    // Correct predictions (the first largest logit) and real tokens.
    const std::vector<double> l = logits.value().to_doubles();
    const int64_t C = logits.size(1);
    for (int64_t b = 0; b < batch.batch_size; ++b) {
      out.correct += argmax(l.data() + b * C, static_cast<size_t>(C)) == batch.labels[b];
      out.tokens += batch.lengths[b];
    }
    return out;
  }

  SplitScores evaluate(const std::string& name, Progress::Style progress) override {
    const SplitScores measured = rotor::evaluate(*model_, data_.split(name), config_, {progress}).metrics.scores();
    return declared_scores(objective_spec(ObjectiveKind::classify), measured);
  }

 private:
  std::unique_ptr<EncoderClassifier> model_;
  const Dataset& data_;
  DataConfig config_;
  double label_smoothing_;
};

}  // namespace

std::unique_ptr<Objective> make_classification(const Config& config, const Dataset& data) {
  return std::make_unique<Classification>(config, data);
}

}  // namespace rotor

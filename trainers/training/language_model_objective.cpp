// train.objective clm: a causal LanguageModel predicts every next token. The
// training split's documents are joined into one token stream (each followed
// by SEP) and cut into blocks of data.max_len inputs that overlap by one token,
// so every token but the first is a target exactly once an epoch; the sampler
// shuffles the blocks per epoch like documents. Held-out splits are scored at
// data.eval_max_len (0: max_len) in non-overlapping windows.
#include "datasets/lm_windows.h"
#include "models/language_model.h"
#include "trainers/training/language_model_batch.h"
#include "trainers/training/language_model_evaluation.h"
#include "trainers/training/objective.h"

namespace rotor {
namespace {

class CausalLanguageModelling : public Objective {
 public:
  CausalLanguageModelling(const Config& config, const Dataset& data)
      : model_(config.model, LanguageModelKind::causal, DType::F32),
        data_(data),
        config_(config.data),
        separator_(data.tokenizer->sep_id()),
        train_blocks_(lm_blocks("train", token_stream(data.split("train"), separator_), config.data.max_len,
                                config.data.max_len)) {}

  Model& model() override { return model_; }

  Sampler training_sampler() const override {
    WindowConfig block;  // a whole block: max_len inputs and the target after the last
    block.max_len = config_.max_len + 1;
    block.random_train_windows = false;
    return Sampler(train_blocks_, block, batch_config(config_), config_.seed, SamplerMode::train);
  }

  int64_t loss_terms(const Batch& batch) const override {
    int64_t terms = 0;
    for (int64_t b = 0; b < batch.batch_size; ++b) terms += std::max(0, batch.lengths[b] - 1 - batch.labels[b]);
    return terms;
  }

  BatchLoss forward(const Batch& batch, ForwardContext& ctx) const override {
    const LanguageModelBatch lm = language_model_batch(batch);
    const Var logits = model_.logits(lm.input(), ctx);
    BatchLoss out;
    out.loss = model_.loss(logits, lm.targets);
    out.correct = score_targets(logits.value(), lm.targets).correct;
    for (const int32_t n : lm.lengths) out.tokens += n;
    return out;
  }

  SplitScores evaluate(const std::string& name, Progress::Style progress) override {
    const int64_t length = eval_max_len(config_);
    return evaluate_language_model(model_, data_.split(name), separator_, {length, length}, config_, {progress}).scores;
  }

 private:
  LanguageModel model_;
  const Dataset& data_;
  DataConfig config_;
  int32_t separator_;
  TokenizedSplit train_blocks_;
};

}  // namespace

std::unique_ptr<Objective> make_causal_language_modelling(const Config& config, const Dataset& data) {
  return std::make_unique<CausalLanguageModelling>(config, data);
}

}  // namespace rotor

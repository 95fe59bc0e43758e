// train.objective mlm: a masked LanguageModel (BERT's pre-training objective)
// predicts the tokens selected by BERT's masking (datasets/mlm_masking.h). The
// training blocks are the causal objective's: the training split's token stream
// (documents each followed by SEP) cut into windows of data.max_len + 1 tokens
// that overlap by one; the model reads a window's first max_len tokens, so
// every token of the stream is an input exactly once an epoch (the stream's
// last, a SEP, is never maskable). Sharing the blocks shares the sampler, the
// batch layout and the evaluation windows with clm. Masks are keyed by
// (data.seed, epoch, stream position): redrawn every epoch, independent of
// threads and batching, and a resumed run draws the same. Held-out splits are
// scored at data.eval_max_len with fixed masks.
#include "datasets/lm_windows.h"
#include "models/language_model.h"
#include "trainers/training/language_model_batch.h"
#include "trainers/training/language_model_evaluation.h"
#include "trainers/training/objective.h"

namespace rotor {
namespace {

class MaskedLanguageModelling : public Objective {
 public:
  MaskedLanguageModelling(const Config& config, const Dataset& data)
      : model_(config.model, LanguageModelKind::masked, DType::F32),
        data_(data),
        config_(config.data),
        rule_{config.train.mask_probability, static_cast<int32_t>(config.model.vocab_size)},
        separator_(data.tokenizer->sep_id()),
        train_blocks_(lm_blocks("train", token_stream(data.split("train"), separator_), config.data.max_len,
                                config.data.max_len)) {}

  Model& model() override { return model_; }

  Sampler training_sampler() const override {
    WindowConfig block;  // a whole block: max_len inputs and the first token of the next block
    block.max_len = config_.max_len + 1;
    block.random_train_windows = false;
    return Sampler(train_blocks_, block, batch_config(config_), config_.seed, SamplerMode::train);
  }

  int64_t loss_terms(const Batch& batch) const override { return masked(batch).scored; }

  BatchLoss forward(const Batch& batch, ForwardContext& ctx) const override {
    const LanguageModelBatch lm = masked(batch);
    const Var logits = model_.logits(lm.input(), ctx);
    BatchLoss out;
    out.loss = model_.loss(logits, lm.targets);
    out.correct = score_targets(logits.value(), lm.targets).correct;
    for (const int32_t n : lm.lengths) out.tokens += n;
    return out;
  }

  SplitScores evaluate(const std::string& name, Progress::Style progress) override {
    const int64_t length = eval_max_len(config_);
    return evaluate_language_model(model_, data_.split(name), separator_, {length, length, rule_}, config_, {progress})
        .scores;
  }

 private:
  LanguageModelBatch masked(const Batch& batch) const {
    return masked_language_model_batch(batch, {training_mask_key(config_.seed, batch.epoch), rule_, config_.max_len});
  }

  LanguageModel model_;
  const Dataset& data_;
  DataConfig config_;
  MaskingRule rule_;
  int32_t separator_;
  TokenizedSplit train_blocks_;
};

}  // namespace

std::unique_ptr<Objective> make_masked_language_modelling(const Config& config, const Dataset& data) {
  return std::make_unique<MaskedLanguageModelling>(config, data);
}

}  // namespace rotor

// train.objective clm and mlm: a LanguageModel trained on the training split's
// token stream (documents each followed by SEP) cut into blocks of
// data.max_len + 1 tokens that overlap by one, across documents or within each
// (data.lm_blocks); the sampler shuffles the blocks per epoch like documents. What differs is what a block teaches:
//   clm  a causal model reads the block's first max_len tokens and predicts the
//        next token at every slot: every token but the first is a target once an epoch.
//   mlm  a masked model (BERT) reads the same max_len tokens, corrupted by BERT's
//        masking (datasets/mlm_masking.h), and predicts the selected ones: every
//        token is an input once an epoch (the stream's last, a SEP, is never
//        maskable). Masks are keyed by (data.seed, epoch, stream position):
//        redrawn every epoch, independent of threads and batching, and a resumed
//        run draws the same.
// Held-out splits are scored at data.eval_max_len (0: max_len) in
// non-overlapping windows; a masked model's with the fixed evaluation masks.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "datasets/lm_windows.h"
#include "datasets/mlm_masking.h"
#include "models/language_model.h"
#include "trainers/training/language_model_batch.h"
#include "trainers/training/language_model_evaluation.h"
#include "trainers/training/objective.h"

namespace rotor {
namespace {

constexpr double kMostBatchesSelectingNothing = 0.01;

class LanguageModelling : public Objective {
 public:
  // masking: BERT's rule for a masked model (train.objective mlm's row builds one); none: a causal model.
  LanguageModelling(const Config& config, const Dataset& data, std::optional<MaskingRule> masking)
      : model_(make_head<LanguageModel>(config)),
        data_(data),
        config_(config.data),
        spec_(objective_spec(config.train.objective)),
        masking_(masking),
        separator_(data.tokenizer->sep_id()),
        train_blocks_(lm_windows(data.split("train"), separator_, config.data.max_len, config.data.max_len,
                                 config.data.lm_blocks)) {}

  Model& model() override { return *model_; }

  Sampler training_sampler() const override {
    WindowConfig block;  // a whole block: max_len inputs and the token after the last
    block.max_len = config_.max_len + 1;
    block.random_train_windows = false;
    return Sampler(train_blocks_.windows, block, batch_config(config_), config_.seed, SamplerMode::train);
  }

  int64_t loss_terms(const Batch& batch) const override {
    if (masking_) return model_batch(batch).scored;  // the masks decide
    int64_t terms = 0;  // every input slot's next token, but the window's context-only ones
    for (int64_t b = 0; b < batch.batch_size; ++b) terms += std::max(0, batch.lengths[b] - 1 - batch.labels[b]);
    return terms;
  }

  BatchLoss forward(const Batch& batch, ForwardContext& ctx) const override {
    return language_model_loss(*model_, model_batch(batch), ctx);
  }

  SplitScores evaluate(const std::string& name, Progress::Style progress) override {
    const int64_t length = eval_max_len(config_);
    const LanguageModelWindows windows{length, length, masking_};
    return declared_scores(
        spec_, evaluate_language_model(*model_, data_.split(name), separator_, windows, config_, {progress}).scores);
  }

 private:
  // The training batch as the model reads it: next-token targets, or the masked inputs and their targets.
  LanguageModelBatch model_batch(const Batch& batch) const {
    if (!masking_) return language_model_batch(batch);
    return masked_language_model_batch(
        batch, {training_mask_key(config_.seed, batch.epoch), *masking_, &train_blocks_.starts});
  }

  std::unique_ptr<LanguageModel> model_;
  const Dataset& data_;
  DataConfig config_;
  const ObjectiveSpec& spec_;
  std::optional<MaskingRule> masking_;
  int32_t separator_;
  StreamWindows train_blocks_;
};

// A batch whose masks select no token teaches nothing (TrainStep skips it); refused when that would be common
// (more than 1 batch in 100), as a tiny train.mask_probability makes it.
void refuse_masks_selecting_nothing(const Config& config) {
  const DataConfig& d = config.data;
  const int64_t tokens = d.batch_tokens > 0 ? d.batch_tokens : d.batch_size * d.max_len;
  const std::string batch = d.batch_tokens > 0
                                ? fmt::format("data.batch_tokens {}", d.batch_tokens)
                                : fmt::format("data.batch_size {} x data.max_len {}", d.batch_size, d.max_len);
  const double p = config.train.mask_probability;
  const double none = std::pow(1.0 - p, static_cast<double>(tokens));
  if (none <= kMostBatchesSelectingNothing) return;
  const double needed = 1.0 - std::pow(kMostBatchesSelectingNothing, 1.0 / static_cast<double>(tokens));
  throw ConfigError(fmt::format(
      "train.mask_probability: {} selects about {:.2g} of the {} tokens of a training batch ({}), so {:.0f}% of "
      "batches would select no token and teach nothing; set train.mask_probability to at least {:.2g} or use "
      "larger batches",
      p, p * static_cast<double>(tokens), tokens, batch, 100.0 * none, needed));
}

}  // namespace

std::unique_ptr<Objective> make_causal_language_modelling(const Config& config, const Dataset& data) {
  return std::make_unique<LanguageModelling>(config, data, std::nullopt);
}

std::unique_ptr<Objective> make_masked_language_modelling(const Config& config, const Dataset& data) {
  refuse_masks_selecting_nothing(config);
  const MaskingRule rule{config.train.mask_probability, static_cast<int32_t>(config.model.vocab_size)};
  return std::make_unique<LanguageModelling>(config, data, rule);
}

}  // namespace rotor

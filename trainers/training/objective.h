#pragma once
// What a run trains its model for (train.objective): the model with its head,
// the batches of a training epoch, the loss of a batch, and the scores of a
// held-out split. The training step and the trainer are the same for every
// objective; what differs lives behind this interface:
//   classify  EncoderClassifier, one window per document, cross entropy on the label
//   clm       LanguageModel (causal), the split's token stream cut into blocks,
//             next-token cross entropy on every position
//   mlm       LanguageModel (masked), the same blocks with BERT's masks,
//             cross entropy on the selected tokens
//   transduction  LanguageModel (masked: bidirectional), a sequence task's samples
//             whole, cross entropy at the query positions (targeted_tokens.h)
//   completion    LanguageModel (causal), the same on prompt = answer, the answer scored
#include <cstdint>
#include <memory>
#include <string>

#include "datasets/dataset.h"
#include "engine/var.h"
#include "models/forward_context.h"
#include "models/model.h"
#include "trainers/config/config.h"
#include "trainers/config/objective_table.h"
#include "trainers/run/declared_scores.h"
#include "trainers/training/progress.h"

namespace rotor {

struct BatchLoss {
  Var loss;             // mean over the batch's loss terms
  int64_t terms = 0;    // loss_terms() of the batch, counted while building it
  int64_t correct = 0;  // loss terms whose prediction is right (label, next token)
  int64_t tokens = 0;   // real input tokens
};

class Objective {
 public:
  virtual ~Objective() = default;
  virtual Model& model() = 0;
  // A sampler over the training batches; it keeps references into the objective.
  virtual Sampler training_sampler() const = 0;
  // Loss terms in a batch (documents; scored targets): a group's share of the batch mean.
  virtual int64_t loss_terms(const Batch& batch) const = 0;
  virtual BatchLoss forward(const Batch& batch, ForwardContext& ctx) const = 0;
  // The model's scores on held-out split `name` at the run's evaluation length, as its row declares them.
  virtual SplitScores evaluate(const std::string& name, Progress::Style progress = Progress::Style::none) = 0;
};

// The objective of `config` over `data`, with a new model (parameters declared, not yet initialised).
// `data` must outlive it. Throws ConfigError naming data.task and train.objective when the data
// is not what the objective's row reads (per-token targets come from a sequence task only).
std::unique_ptr<Objective> make_objective(const Config& config, const Dataset& data);
// The kinds, each in its own file.
std::unique_ptr<Objective> make_classification(const Config& config, const Dataset& data);
std::unique_ptr<Objective> make_causal_language_modelling(const Config& config, const Dataset& data);
std::unique_ptr<Objective> make_masked_language_modelling(const Config& config, const Dataset& data);
std::unique_ptr<Objective> make_transduction(const Config& config, const Dataset& data);
std::unique_ptr<Objective> make_completion(const Config& config, const Dataset& data);

// The model of `config`'s objective row (objective_table.h), as the head `Head`
// the objective trains; the row and the objective's file must agree on it.
template <class Head>
std::unique_ptr<Head> make_head(const Config& config) {
  std::unique_ptr<Model> model = objective_spec(config.train.objective).make_model(config.model);
  if (dynamic_cast<Head*>(model.get()) == nullptr)
    throw ConfigError("train.objective " + objective_spec(config.train.objective).name() +
                      ": its row builds a model its objective does not train");
  return std::unique_ptr<Head>(static_cast<Head*>(model.release()));
}

}  // namespace rotor

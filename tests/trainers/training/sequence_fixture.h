#pragma once
// Reverse-string samples built by hand in either layout, a tiny model's config
// and a plain training loop: the sequence objectives' tests (training/,
// diagnostics/) train on them without the task loader.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "datasets/tasks/sequence_layout.h"
#include "trainers/training/optimizer_factory.h"
#include "trainers/training/targeted_tokens.h"

namespace rotor::test {

// Symbols a, b at ids 4, 5; the layouts' marks "?", "=", "." at 6, 7, 8.
inline int32_t id_of(const std::string& s) {
  const std::vector<std::string> symbols{"a", "b", kQuerySymbol, kAnswerSymbol, kEndSymbol};
  return 4 + static_cast<int32_t>(std::find(symbols.begin(), symbols.end(), s) - symbols.begin());
}

// Reverse-string over {a, b}: every string of 1..max_length symbols, in the given layout.
inline TokenizedSplit reverse_split(const std::string& name, SequenceLayout layout, int64_t max_length) {
  TokenizedSplit split;
  split.name = name;
  for (int64_t n = 1; n <= max_length; ++n)
    for (int64_t bits = 0; bits < (int64_t{1} << n); ++bits) {
      SequenceSample sample;
      for (int64_t i = 0; i < n; ++i) sample.input.push_back((bits >> i) & 1 ? "b" : "a");
      sample.output.assign(sample.input.rbegin(), sample.input.rend());
      const RenderedSample r = render(sample, layout);
      std::vector<int32_t> tokens, targets;
      for (const std::string& s : r.tokens) tokens.push_back(id_of(s));
      for (const std::string& s : r.targets) targets.push_back(s.empty() ? kNoTarget : id_of(s));
      split.add_with_targets(tokens, targets);
    }
  return split;
}

inline Config tiny_config(ObjectiveKind objective) {
  Config c;
  c.train.objective = objective;
  c.model.vocab_size = 9;
  c.model.d_model = 32;
  c.model.heads = 4;
  c.model.layers = 2;
  c.model.d_ff = 64;
  c.model.dropout = c.model.attention_dropout = 0.0;
  c.model.position.type = "rope";
  c.data.batch_size = 8;
  c.data.max_len = 16;
  c.train.lr = 3e-3;
  c.train.weight_decay = 0.0;
  return c;
}

inline Dataset dataset_of(std::vector<TokenizedSplit> splits) {
  Dataset d;
  d.splits = std::move(splits);
  return d;
}

}  // namespace rotor::test

namespace rotor::test {

// `steps` updates of the objective's model at train.lr (no schedule), over its training sampler's epochs.
inline void train_steps(Objective& objective, const Config& config, int steps) {
  const std::unique_ptr<Optimizer> adam = make_optimizer(config.train, objective.model().parameters());
  Sampler sampler = objective.training_sampler();
  Batch batch;
  for (int step = 0; step < steps;) {
    if (!sampler.next(batch)) continue;
    ForwardContext ctx;
    ctx.training = true;
    objective.model().parameters().zero_grad();
    backward(objective.forward(batch, ctx).loss);
    adam->step(config.train.lr);
    ++step;
  }
}

}  // namespace rotor::test

#include "trainers/training/targeted_tokens.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "trainers/training/score_batches.h"

namespace rotor {
namespace {

constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();

double ratio(double part, double whole) { return whole > 0 ? part / whole : kAbsent; }

struct SampleTotals {
  double nats = 0, targets = 0, correct = 0, right = 0, samples = 0;
};

// What each metric name a sequence objective's row may declare measures (targeted_tokens.h).
const std::vector<std::pair<std::string, double (*)(const SampleTotals&)>> kMeasures = {
    {"loss", [](const SampleTotals& t) { return ratio(t.nats, t.targets); }},
    {"token_accuracy", [](const SampleTotals& t) { return ratio(t.correct, t.targets); }},
    {"sequence_accuracy", [](const SampleTotals& t) { return ratio(t.right, t.samples); }},
    {"exact_match", [](const SampleTotals& t) { return ratio(t.right, t.samples); }},
};

// A scored batch as gather_in_order carries it: per row (sample), its nats,
// targeted positions and correct ones.
ScoredBatch packed_targets(int64_t index, const Batch& batch, const TargetScores& s) {
  ScoredBatch b{index, batch.doc_ids, {}, {}};
  for (size_t r = 0; r < s.row_nats.size(); ++r) {
    b.logits.push_back(s.row_nats[r]);
    b.logits.push_back(static_cast<double>(s.row_count[r]));
    b.logits.push_back(static_cast<double>(s.row_correct[r]));
  }
  return b;
}

SampleScores unpacked(const std::vector<ScoredBatch>& batches, int64_t samples) {
  SampleScores out;
  out.nats.assign(static_cast<size_t>(samples), 0.0);
  out.targets.assign(static_cast<size_t>(samples), 0);
  out.correct.assign(static_cast<size_t>(samples), 0);
  for (const ScoredBatch& b : batches) {
    for (size_t r = 0; r < b.doc_ids.size(); ++r) {
      const auto sample = static_cast<size_t>(b.doc_ids[r]);
      out.nats[sample] = b.logits[3 * r];
      out.targets[sample] = static_cast<int64_t>(b.logits[3 * r + 1]);
      out.correct[sample] = static_cast<int64_t>(b.logits[3 * r + 2]);
    }
  }
  return out;
}

class TargetedTokens : public Objective {
 public:
  TargetedTokens(const Config& config, const Dataset& data)
      : model_(make_head<LanguageModel>(config)),
        data_(data),
        config_(config.data),
        spec_(objective_spec(config.train.objective)) {}

  Model& model() override { return *model_; }
  Sampler training_sampler() const override { return make_sampler(data_, config_, "train"); }

  int64_t loss_terms(const Batch& batch) const override {
    int64_t terms = 0;
    for (const int32_t target : batch.targets) terms += target != kNoTarget;
    return terms;
  }

  BatchLoss forward(const Batch& batch, ForwardContext& ctx) const override {
    return language_model_loss(*model_, targeted_batch(batch), ctx);
  }

  SplitScores evaluate(const std::string& name, Progress::Style progress) override {
    return evaluate_targeted(*model_, data_.split(name), config_, spec_, {progress}).scores;
  }

 private:
  std::unique_ptr<LanguageModel> model_;
  const Dataset& data_;
  DataConfig config_;
  const ObjectiveSpec& spec_;
};

}  // namespace

LanguageModelBatch targeted_batch(const Batch& batch) {
  LanguageModelBatch b;
  b.batch = batch.batch_size;
  b.seq_len = batch.seq_len;
  b.tokens = batch.tokens;
  b.lengths = batch.lengths;
  b.positions = batch.positions;
  b.targets.reserve(batch.targets.size());
  for (const int32_t target : batch.targets) {
    b.targets.push_back(target == kNoTarget ? kUnscoredTarget : target);
    b.scored += target != kNoTarget;
  }
  return b;
}

SplitScores targeted_scores(const SampleScores& samples, const ObjectiveSpec& spec) {
  SampleTotals t;
  for (size_t i = 0; i < samples.nats.size(); ++i) {
    t.nats += samples.nats[i];
    t.targets += static_cast<double>(samples.targets[i]);
    t.correct += static_cast<double>(samples.correct[i]);
    t.right += samples.right(i);
  }
  t.samples = t.targets > 0 ? static_cast<double>(samples.nats.size()) : 0.0;  // none scored: absent
  SplitScores scores;
  for (const MetricDeclaration& m : spec.metrics) {
    const auto measure =
        std::find_if(kMeasures.begin(), kMeasures.end(), [&](const auto& e) { return e.first == m.name; });
    if (measure == kMeasures.end())
      throw ConfigError("train.objective " + spec.name() + ": its row declares the metric '" + m.name +
                        "', which a sequence task's scores do not measure");
    scores.set(m.name, measure->second(t));
  }
  return scores;
}

TargetedEvaluation evaluate_targeted(LanguageModel& model, const TokenizedSplit& split, const DataConfig& data,
                                     const ObjectiveSpec& spec, const EvalOptions& options) {
  if (!split.has_targets())
    throw DataError("split '" + split.name + "' has no per-token targets, which train.objective " + spec.name() +
                    " scores; evaluate a split of the run's sequence task (--split) instead");
  Sampler sampler = make_eval_sampler(split, data);
  const std::vector<ScoredBatch> scored =
      score_batches(model, sampler, split.name, {targeted_batch, packed_targets}, options);
  TargetedEvaluation out;
  out.samples = unpacked(scored, split.num_docs());
  out.scores = targeted_scores(out.samples, spec);
  return out;
}

std::unique_ptr<Objective> make_targeted_tokens(const Config& config, const Dataset& data) {
  return std::make_unique<TargetedTokens>(config, data);
}

}  // namespace rotor

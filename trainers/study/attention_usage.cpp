#include "trainers/study/attention_usage.h"

#include <cmath>

#include "trainers/config/objective_table.h"
#include "trainers/run/run_directory.h"
#include "trainers/study/best_checkpoint.h"
#include "trainers/training/batch_input.h"
#include "trainers/training/restored_model.h"
#include "trainers/training/run_compute_scope.h"

namespace rotor {
namespace {

// Sums relative entropies per layer over the rows it is shown.
class EntropyObserver : public AttentionObserver {
 public:
  explicit EntropyObserver(int64_t layers) : sums_(static_cast<size_t>(layers), 0.0), rows_(sums_.size(), 0) {}

  void observe(int64_t layer, const Tensor& probabilities, const std::vector<int32_t>& key_lengths) override {
    const std::vector<double> p = probabilities.to_doubles();
    const int64_t B = probabilities.size(0), H = probabilities.size(1), N = probabilities.size(2);
    for (int64_t b = 0; b < B; ++b) {
      const int64_t keys = key_lengths[static_cast<size_t>(b)];
      if (keys < 2) continue;
      const double uniform = std::log(static_cast<double>(keys));
      for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < keys; ++i) {
          const double* row = p.data() + ((b * H + h) * N + i) * N;
          double entropy = 0.0;
          for (int64_t j = 0; j < keys; ++j)
            if (row[j] > 0.0) entropy -= row[j] * std::log(row[j]);
          sums_[static_cast<size_t>(layer)] += entropy / uniform;
          ++rows_[static_cast<size_t>(layer)];
        }
    }
  }

  std::vector<double> means() const {
    std::vector<double> out(sums_.size(), std::nan(""));
    for (size_t l = 0; l < sums_.size(); ++l)
      if (rows_[l] > 0) out[l] = sums_[l] / static_cast<double>(rows_[l]);
    return out;
  }

 private:
  std::vector<double> sums_;
  std::vector<int64_t> rows_;
};

}  // namespace

AttentionUsage measure_attention_usage(const std::string& run_dir) {
  const BestCheckpoint best = open_best_checkpoint(run_dir);
  RestoredModel r = restore_model(best.path, {"model.attention_kernel=composed"});
  AttentionUsage u;
  if (const ObjectiveSpec& objective = objective_spec(r.header.config.train.objective);
      objective.evidence != EvidenceUnit::document) {
    u.reason = "train.objective " + objective.name() + ": the position-usage check compares documents' predicted " +
               "classes, a classifier study's";
  } else if (r.model->config().attention != AttentionKind::softmax) {
    u.reason = "linear attention forms no attention probabilities";
  } else {
    u.available = true;
    u.split = "val";
    EntropyObserver observer(r.model->config().layers);
    // The run's precision and threads, as its length sweep and `rotor eval` compute.
    const RunComputeScope compute(r.header.config.run);
    ForwardContext ctx;  // evaluation: no dropout
    ctx.attention_observer = &observer;
    NoGradGuard no_grad;
    Sampler sampler = make_sampler(best.data, r.header.config.data, u.split);
    Batch batch;
    while (u.windows < kAttentionWindows && sampler.next(batch)) {
      r.classifier("attention usage").logits(batch_input(batch), ctx);
      u.windows += batch.batch_size;
    }
    u.layer_entropy = observer.means();
  }
  RunDirectory(run_dir).write_attention_usage(u);
  return u;
}

}  // namespace rotor

#include "trainers/training/memory_estimate.h"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

namespace rotor {

double weight_count(const ModelConfig& m) {
  const double d = static_cast<double>(m.d_model), d_ff = static_cast<double>(m.d_ff);
  // Per layer: q, k, v and output projections (4 d^2) and the MLP's two matrices.
  const double per_layer = 4.0 * d * d + 2.0 * d * d_ff;
  return static_cast<double>(m.layers) * per_layer + static_cast<double>(m.vocab_size + m.num_classes) * d;
}

MemoryEstimate estimate_training_memory(const Config& config, double parameter_count, int ranks) {
  const ModelConfig& m = config.model;
  const DataConfig& d = config.data;
  MemoryEstimate e;
  const int64_t positions = m.positions_for(d.max_len);
  const int64_t batch = d.batch_tokens > 0 ? std::max<int64_t>(1, d.batch_tokens / positions) : d.batch_size;
  e.batch_tokens = batch * positions;
  // float32 value, gradient and (Adam) two moments per parameter.
  e.parameter_bytes = 16.0 * parameter_count;
  // Per position and layer: layer-norm outputs, q/k/v and their rotations,
  // attention output, projections, residuals and dropout outputs (~16 d), and
  // the MLP's hidden pre-activation, activation and dropout (3 d_ff).
  double per_position = 16.0 * static_cast<double>(m.d_model) + 3.0 * static_cast<double>(m.d_ff);
  if (m.attention == AttentionKind::softmax && m.attention_kernel == AttentionKernel::composed)
    per_position += 3.0 * static_cast<double>(m.heads) * static_cast<double>(positions);  // scores, probabilities, mask
  e.activation_bytes = 4.0 * per_position * static_cast<double>(e.batch_tokens) * static_cast<double>(m.layers);
  // trainers/distributed/gradient_reducer.h keeps each local group's float32 gradient.
  e.local_groups = std::max<int64_t>(1, config.train.gradient_groups / std::max(1, ranks));
  if (e.local_groups > 1) e.group_gradient_bytes = 4.0 * parameter_count * static_cast<double>(e.local_groups);
  return e;
}

void check_fits_in_memory(const MemoryEstimate& e) {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return;  // unknown: let the allocator decide
  const double physical = static_cast<double>(pages) * static_cast<double>(page_size);
  if (e.total() <= physical) return;
  constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
  const bool groups = e.group_gradient_bytes > 0;
  throw ConfigError(fmt::format(
      "this config needs about {:.1f} GiB to train (parameters, gradients and optimizer state {:.1f} GiB; "
      "activations of a batch of {} positions {:.1f} GiB{}) but this machine has {:.1f} GiB; lower model.d_model, "
      "model.layers, model.d_ff, data.batch_size or data.max_len{}",
      e.total() / GiB, e.parameter_bytes / GiB, e.batch_tokens, e.activation_bytes / GiB,
      groups ? fmt::format("; a gradient copy for each of {} gradient groups {:.1f} GiB", e.local_groups,
                           e.group_gradient_bytes / GiB)
             : "",
      physical / GiB, groups ? ", or train.gradient_groups" : ""));
}

}  // namespace rotor

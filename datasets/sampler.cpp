#include "datasets/sampler.h"

#include "datasets/data_error.h"

namespace rotor {

Sampler::Sampler(const TokenizedSplit& split, const WindowConfig& windows, const BatchConfig& batching, uint64_t seed,
                 SamplerMode mode)
    : split_(&split), window_config_(windows), batch_config_(batching), seed_(seed), mode_(mode) {
  if (split.num_docs() == 0) throw DataError("split '" + split.name + "' is empty: nothing to sample");
  // Permuted tokens would no longer sit under their targets (queries, answers).
  if (windows.shuffle_tokens && split.has_targets())
    throw DataError("data.shuffle_tokens: split '" + split.name +
                    "' is a sequence task's, whose targets belong to their positions; expected false");
}

void Sampler::plan() {
  if (mode_ == SamplerMode::eval) {
    if (planned_epoch_ >= 0) return;  // evaluation order does not depend on the epoch
  } else if (planned_epoch_ == state_.epoch) {
    return;
  }
  windows_ = mode_ == SamplerMode::train ? train_windows(*split_, window_config_, seed_, state_.epoch)
                                         : eval_windows(*split_, window_config_);
  std::vector<int64_t> lengths;
  lengths.reserve(windows_.size());
  for (const Window& w : windows_) lengths.push_back(w.length());
  batches_ = mode_ == SamplerMode::train ? plan_train_batches(lengths, batch_config_, seed_, state_.epoch)
                                         : plan_eval_batches(lengths, batch_config_);
  planned_epoch_ = state_.epoch;
}

bool Sampler::next(Batch& out) {
  plan();
  if (state_.cursor >= static_cast<int64_t>(batches_.size())) {
    state_ = SamplerState{state_.epoch + 1, 0};
    return false;
  }
  out = make_batch(*split_, windows_, batches_[static_cast<size_t>(state_.cursor)]);
  out.epoch = mode_ == SamplerMode::train ? state_.epoch : 0;
  if (window_config_.shuffle_tokens) {
    for (int64_t row = 0; row < out.batch_size; ++row) {
      const Window& w = windows_[static_cast<size_t>(batches_[static_cast<size_t>(state_.cursor)][row])];
      shuffle_window(out.tokens.data() + row * out.seq_len, w.length(), seed_, out.epoch, w);
    }
  }
  ++state_.cursor;
  return true;
}

int64_t Sampler::batches_in_epoch() {
  plan();
  return static_cast<int64_t>(batches_.size());
}

void Sampler::restore(const SamplerState& state) {
  if (state.epoch < 0 || state.cursor < 0) throw DataError("sampler state: epoch and cursor must be >= 0");
  state_ = state;
  if (state_.cursor > batches_in_epoch()) {
    throw DataError("sampler state: cursor " + std::to_string(state.cursor) + " is beyond the " +
                    std::to_string(batches_in_epoch()) + " batches of epoch " + std::to_string(state.epoch) +
                    " of split '" + split_->name + "' (was the data or batch config changed?)");
  }
}

}  // namespace rotor

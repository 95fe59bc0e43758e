#include "trainers/distributed/gradient_reducer.h"

#include "trainers/distributed/ordered_sum.h"

#include <chrono>

namespace rotor {

GradientReducer::GradientReducer(ParameterStore& params, Communicator& comm, int64_t local_groups, int64_t bucket_bytes,
                                 bool overlap)
    : params_(params), comm_(comm), local_groups_(local_groups), overlap_(overlap) {
  if (local_groups_ > 1)
    for (int64_t j = 0; j < local_groups_; ++j)
      group_grads_.push_back(Tensor::zeros({params.total_size()}, params.dtype()));
  const int64_t element_bytes = params.dtype() == DType::F64 ? 8 : 4;
  const std::vector<ParameterInfo>& infos = params.infos();
  for (size_t p = infos.size(); p-- > 0;) {
    const int64_t size = numel(infos[p].shape);
    if (buckets_.empty() || (buckets_.back().end - buckets_.back().begin) * element_bytes >= bucket_bytes)
      buckets_.push_back({infos[p].offset, infos[p].offset + size, 0});
    buckets_.back().begin = infos[p].offset;
    bucket_of_leaf_[params.var(static_cast<ParameterId>(p)).node().get()] = buckets_.size() - 1;
  }
  reset_waiting();
}

void GradientReducer::reset_waiting() {
  next_start_ = 0;
  for (Bucket& b : buckets_) b.waiting = 0;
  for (const auto& [leaf, b] : bucket_of_leaf_) ++buckets_[b].waiting;
}

void GradientReducer::begin_group(int64_t j, bool first_micro_batch) {
  if (first_micro_batch)
    params_.zero_grad();
  else if (local_groups_ > 1)
    params_.grads().copy_from(group_grads_[static_cast<size_t>(j)]);
  // With one group the store's buffer simply keeps accumulating.
}

std::function<void(const Node&)> GradientReducer::on_leaf_final(bool last) {
  if (!last || !overlap_ || comm_.size() == 1) return {};
  return [this](const Node& leaf) { leaf_final(leaf); };
}

void GradientReducer::end_group(int64_t j, bool last) {
  if (local_groups_ > 1 && !last) group_grads_[static_cast<size_t>(j)].copy_from(params_.grads());
}

void GradientReducer::leaf_final(const Node& leaf) {
  auto it = bucket_of_leaf_.find(&leaf);
  if (it == bucket_of_leaf_.end()) return;
  if (--buckets_[it->second].waiting == 0) start_ready_buckets(true);
  // MPI progresses only inside MPI calls; sums finish in start order.
  for (auto& sum : pending_)
    if (!sum->done()) break;
}

void GradientReducer::start_ready_buckets(bool during_backward) {
  while (next_start_ < buckets_.size() && buckets_[next_start_].waiting <= 0) {
    start(buckets_[next_start_++]);
    early_starts_ += during_backward;
  }
}

void GradientReducer::start(Bucket& bucket) {
  Tensor grads = params_.grads();
  const int64_t count = bucket.end - bucket.begin;
  if (local_groups_ > 1) {
    // This rank's partial: the tree over its groups; the last group is still in the store's buffer.
    dispatch(grads.dtype(), [&](auto tag) {
      using T = decltype(tag);
      std::vector<const T*> parts;
      for (int64_t j = 0; j + 1 < local_groups_; ++j)
        parts.push_back(group_grads_[static_cast<size_t>(j)].template data<T>() + bucket.begin);
      T* last = grads.data<T>() + bucket.begin;
      parts.push_back(last);
      ordered_sum(parts, last, count);
    });
  }
  pending_.push_back(comm_.start_sum(grads.view(bucket.begin, {count})));
}

void GradientReducer::finish() {
  const auto start = std::chrono::steady_clock::now();
  for (Bucket& b : buckets_) b.waiting = 0;
  start_ready_buckets(false);
  for (auto& sum : pending_) sum->wait();
  pending_.clear();
  wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  reset_waiting();
}

}  // namespace rotor

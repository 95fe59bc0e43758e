// The single-process parts of data parallelism: the fixed summation tree,
// how batches split into gradient groups, and the gradient reducer with
// several local groups (what a rank computes before it communicates).
#include <catch2/catch.hpp>
#include <cstring>

#include "engine/ops.h"
#include "engine/parameters.h"
#include "trainers/config/config.h"
#include "trainers/distributed/communicator.h"
#include "trainers/distributed/gradient_groups.h"
#include "trainers/distributed/gradient_reducer.h"
#include "trainers/distributed/ordered_sum.h"
#include "trainers/distributed/scored_batches.h"

using namespace rotor;

namespace {

std::vector<std::vector<float>> random_parts(int parts, int count) {
  std::vector<std::vector<float>> out(static_cast<size_t>(parts));
  uint32_t state = 12345;
  for (auto& p : out)
    for (int i = 0; i < count; ++i) {
      state = state * 1664525u + 1013904223u;
      // Values of mixed magnitudes, so that the order of additions shows in the bits.
      p.push_back(static_cast<float>(state >> 8) * (i % 3 == 0 ? 1e-7f : 1.0f) - 3e6f);
    }
  return out;
}

std::vector<float> tree(const std::vector<std::vector<float>>& parts, size_t lo, size_t hi) {
  std::vector<const float*> ptrs;
  for (size_t p = lo; p < hi; ++p) ptrs.push_back(parts[p].data());
  std::vector<float> out(parts[0].size());
  ordered_sum(ptrs, out.data(), static_cast<int64_t>(out.size()));
  return out;
}

}  // namespace

TEST_CASE("per-block partial sums finished over the blocks give the single tree's bits") {
  const auto parts = random_parts(8, 257);
  const std::vector<float> whole = tree(parts, 0, 8);
  for (const int blocks : {1, 2, 4, 8}) {
    std::vector<std::vector<float>> partials;
    for (int b = 0; b < blocks; ++b) partials.push_back(tree(parts, b * 8 / blocks, (b + 1) * 8 / blocks));
    const std::vector<float> finished = tree(partials, 0, partials.size());
    INFO(blocks << " blocks");
    CHECK(std::memcmp(finished.data(), whole.data(), whole.size() * sizeof(float)) == 0);
  }
  // A left-to-right sum is a different order: the test data can tell them apart.
  std::vector<float> left = parts[0];
  for (size_t p = 1; p < parts.size(); ++p)
    for (size_t i = 0; i < left.size(); ++i) left[i] += parts[p][i];
  CHECK(std::memcmp(left.data(), whole.data(), whole.size() * sizeof(float)) != 0);
}

TEST_CASE("which numbers of ranks can share a number of groups exactly") {
  CHECK(tree_has_blocks(8, 2));
  CHECK(tree_has_blocks(8, 4));
  CHECK(tree_has_blocks(6, 2));
  CHECK(tree_has_blocks(3, 3));
  CHECK(tree_has_blocks(12, 4));
  CHECK_FALSE(tree_has_blocks(6, 3));  // blocks [2, 4) straddle the first split at 3
  CHECK_FALSE(tree_has_blocks(4, 3));
  CHECK_THROWS_WITH(GradientGroups(6, 0, 3), Catch::Contains("train.gradient_groups is 6"));
  CHECK_NOTHROW(GradientGroups(6, 1, 2));
}

TEST_CASE("a batch splits into consecutive groups and rank r takes its block") {
  const GradientGroups groups(4, 1, 2);
  CHECK(groups.local() == 2);
  CHECK(groups.first() == 2);
  Batch batch;
  batch.batch_size = 6;
  batch.seq_len = 2;
  for (int i = 0; i < 6; ++i) {
    batch.tokens.insert(batch.tokens.end(), {i, i});
    batch.lengths.push_back(2);
    batch.labels.push_back(i % 2);
    batch.doc_ids.push_back(i);
    batch.window_ids.push_back(0);
  }
  // Sizes 1, 2, 1, 2: groups differ by at most one example and cover the batch once.
  int64_t covered = 0;
  for (int64_t g = 0; g < 4; ++g) {
    const Batch part = groups.slice(batch, g);
    CHECK(part.seq_len == 2);
    for (int64_t b = 0; b < part.batch_size; ++b) CHECK(part.doc_ids[b] == covered + b);
    CHECK(part.tokens.size() == static_cast<size_t>(part.batch_size * 2));
    covered += part.batch_size;
  }
  CHECK(covered == 6);
}

TEST_CASE("a sequence task's batch splits with each row's targets and positions") {
  const GradientGroups groups(3, 0, 1);
  Batch batch;
  batch.batch_size = 3;
  batch.seq_len = 2;
  for (int i = 0; i < 3; ++i) {
    batch.tokens.insert(batch.tokens.end(), {i, i});
    batch.targets.insert(batch.targets.end(), {kNoTarget, 10 + i});
    batch.positions.insert(batch.positions.end(), {20 + i, 0});
    batch.lengths.push_back(2);
    batch.labels.push_back(0);
    batch.doc_ids.push_back(i);
    batch.window_ids.push_back(0);
  }
  for (int64_t g = 0; g < 3; ++g) {
    CHECK(groups.slice(batch, g).targets == std::vector<int32_t>{kNoTarget, static_cast<int32_t>(10 + g)});
    CHECK(groups.slice(batch, g).positions == std::vector<int32_t>{static_cast<int32_t>(20 + g), 0});
  }
  batch.targets.clear();  // no task targets or positions: none in the groups either
  batch.positions.clear();
  CHECK(groups.slice(batch, 1).targets.empty());
  CHECK(groups.slice(batch, 1).positions.empty());
}

TEST_CASE("with several local groups the reducer sums their gradients in tree order") {
  ParameterStore params(DType::F32);
  params.declare("w", {5}, ParameterInit::normal(1.0));
  params.declare("v", {3}, ParameterInit::normal(1.0));
  params.allocate(7);
  // One bucket per parameter: 1-byte buckets.
  GradientReducer reducer(params, world(), 3, 1, true);
  CHECK(reducer.buckets() == 2);
  const std::vector<float> scales{1.0f, 1e-4f, 3.0f};
  std::vector<std::vector<float>> expected_parts;
  for (int64_t j = 0; j < 3; ++j) {
    const bool last = j == 2;
    reducer.begin_group(j, true);
    const Var loss = sum_all(params.var(0) * params.var(0)) * Var(Tensor::scalar(DType::F32, scales[j])) +
                     sum_all(params.var(1)) * Var(Tensor::scalar(DType::F32, scales[j]));
    backward(loss, reducer.on_leaf_final(last));
    const float* g = params.grads().data<float>();
    expected_parts.emplace_back(g, g + params.total_size());
    reducer.end_group(j, last);
  }
  reducer.finish();
  const std::vector<float> expected = tree(expected_parts, 0, 3);
  CHECK(std::memcmp(params.grads().data<float>(), expected.data(), expected.size() * sizeof(float)) == 0);
}

TEST_CASE("a single process scores every evaluation batch and keeps their order") {
  Communicator& comm = world();
  REQUIRE(comm.size() == 1);
  CHECK(scores_batch(comm, 0));
  CHECK(scores_batch(comm, 7));
  std::vector<ScoredBatch> mine{{0, {3}, {1}, {0.5, -0.5}}, {1, {4}, {0}, {1.0, 2.0}}};
  const std::vector<ScoredBatch> all = gather_in_order(comm, mine);
  REQUIRE(all.size() == 2);
  CHECK(all[1].logits == std::vector<double>{1.0, 2.0});
}

#pragma once
// The pair bias of one attention call over its whole [H, N, N] square,
// evaluated once and read by every batch row. b_h(i, j) depends on the
// positions, which the batch shares, so evaluating it tile by tile repeats the
// work B times (FIRE's MLP made that most of a training step). The backward
// likewise sums dS over the batch into a square of the same size and hands
// the bias one sum per tile: its parameter gradient is linear in dS. Used
// while H N^2 doubles fit in AttentionConfig::pair_table_bytes; past that the
// attention evaluates tiles as it goes and memory stays O(N).
#include <cstdint>
#include <vector>

#include "engine/kernels/attention.h"
#include "engine/pair_bias.h"

namespace rotor::kernels {

// Whether the call has a pair bias whose [H, N, N] square fits its byte budget.
bool pair_table_fits(const AttentionConfig& c);

class PairBiasTable {
 public:
  // Every entry the attention reads (causal: j <= i), or nothing unless pair_table_fits(c).
  explicit PairBiasTable(const AttentionConfig& c);

  bool empty() const { return values_.empty(); }
  // The bias rows of the tile at query i0, key j0 of head h, one row every `ld` doubles: the
  // table's own, or (no table) the tile evaluated into `scratch` (kBlock per row).
  const double* tile(const AttentionConfig& c, const PairTile& t, double* scratch, int64_t& ld) const;

 private:
  int64_t N_ = 0;
  std::vector<double> values_;  // [H, N, N]
};

// dS of the pair bias over the batch: add(tile, ds, ld), called per visited
// tile with the batch rows in order, sums the tile into an [H, N, N] square,
// and gradients() runs the bias's gradient once per tile of it, heads in order.
class PairGradientSum {
 public:
  explicit PairGradientSum(const AttentionConfig& c) : c_(c), sum_(static_cast<size_t>(c.H * c.N * c.N), 0.0) {}
  void add(const PairTile& t, const double* ds, int64_t ld);
  // Adds the bias's parameter gradient (gradient_size() doubles) to `grads`.
  void gradients(double* grads) const;

 private:
  const AttentionConfig& c_;
  std::vector<double> sum_;
};

}  // namespace rotor::kernels

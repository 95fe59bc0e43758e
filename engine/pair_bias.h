#pragma once
// An additive attention-logit bias b_h(i, j) that depends on the query
// position i and the key position j, not only on their offset, given as a
// compact description (a few parameters and a rule) instead of a tensor.
// The fused attention op (AttentionOptions::pair_bias) asks for it one
// [rows x cols] tile of one head at a time and hands back the tile's dBias,
// so memory stays O(N); the description turns dBias into gradients of its
// parameters. compose() builds the same bias as [H, N, N] from ordinary ops:
// the reference the fused path is tested against.
//
// Tiles and gradients are in double whatever the attention's dtype: a tile
// element is evaluated once per use, and a parameter's gradient is a sum over
// every (head, i, j), which float partial sums would round away.
#include <cstdint>
#include <vector>

#include "engine/var.h"

namespace rotor {

// The most memory the fused attention spends on one [H, N, N] square of a
// call's pair bias, evaluated once for the batch (kernels/pair_bias_table.h):
// 8 heads up to about 1,000 tokens. The backward holds two such squares (the
// bias and dS summed over the batch). Longer calls evaluate the bias tile by
// tile, in O(N) memory.
constexpr int64_t kPairTableBytes = int64_t{32} << 20;

// Queries i0 .. i0 + rows - 1 and keys j0 .. j0 + cols - 1 of one head.
struct PairTile {
  int64_t head = 0, i0 = 0, rows = 0, j0 = 0, cols = 0;
};

class PairBias {
 public:
  virtual ~PairBias() = default;

  virtual int64_t heads() const = 0;
  // The Vars the bias reads, in a fixed order. Gradients are laid out flat in
  // this order, each Var's elements row-major.
  virtual std::vector<Var> parameters() const = 0;

  // out[r * ld + c] = b_head(i0 + r, j0 + c) for r < rows, c < cols; an element's value
  // does not depend on the tile it is asked in (the attention may ask any tiling).
  virtual void fill(const PairTile& tile, double* out, int64_t ld) const = 0;
  // grads[...] += sum over r, c of dbias[r * ld + c] * d b_head(i0 + r, j0 + c) / d parameter,
  // in a fixed order (the caller relies on it for bit-identical results).
  virtual void accumulate_gradients(const PairTile& tile, const double* dbias, int64_t ld, double* grads) const = 0;

  // b for positions 0 .. length - 1 as [H, N, N] in the parameters' dtype, built from
  // differentiable ops.
  virtual Var compose(int64_t length) const = 0;

  // Elements of parameters(): the length of the flat gradient.
  int64_t gradient_size() const {
    int64_t n = 0;
    for (const Var& p : parameters()) n += p.numel();
    return n;
  }
};

}  // namespace rotor

#pragma once
// The tiling and threading contract of rotor's GEMMs (gemm.cpp in fp32/fp64,
// gemm_bf16.cpp in bf16): C is cut into fixed tiles that depend only on the
// shapes, each tile is computed by one single-threaded block product, and tiles
// are dealt to the OpenMP threads. As long as a block product's result does not
// depend on which thread runs it, the whole product is bit-identical for any
// thread count.
#include <algorithm>
#include <cstdint>

#include "engine/parallel.h"

namespace rotor::kernels {

constexpr int64_t kGemmTile = 128;                 // rows (or columns) per tile
constexpr int64_t kGemmMinParallelWork = 1 << 18;  // multiply-adds below which one thread is faster

// How C [M, N] is cut: one block, 128-row tiles, or 128-column tiles (the
// larger output dimension, when it is big enough to share).
enum class GemmTiling { one_block, rows, columns };

inline GemmTiling gemm_tiling(int64_t M, int64_t N, int64_t K) {
  if (M * N * K < kGemmMinParallelWork) return GemmTiling::one_block;
  if (M >= 2 * kGemmTile || (M >= N && M > kGemmTile)) return GemmTiling::rows;
  if (N > kGemmTile) return GemmTiling::columns;
  return GemmTiling::one_block;
}

// Calls block(row0, m, col0, n) for every tile of C [M, N].
template <class Block>
void for_each_gemm_tile(int64_t M, int64_t N, int64_t K, Block&& block) {
  switch (gemm_tiling(M, N, K)) {
    case GemmTiling::one_block:
      block(0, M, 0, N);
      return;
    case GemmTiling::rows:
      parallel_for((M + kGemmTile - 1) / kGemmTile, 1, [&](int64_t t0, int64_t te) {
        for (int64_t t = t0; t < te; ++t) block(t * kGemmTile, std::min(kGemmTile, M - t * kGemmTile), 0, N);
      });
      return;
    case GemmTiling::columns:
      parallel_for((N + kGemmTile - 1) / kGemmTile, 1, [&](int64_t t0, int64_t te) {
        for (int64_t t = t0; t < te; ++t) block(0, M, t * kGemmTile, std::min(kGemmTile, N - t * kGemmTile));
      });
      return;
  }
}

// `batch` products of one shape. whole(i, beta_i) runs product i tiled over the
// threads; one(i) runs it as a single block. With a shared output (sc == 0)
// the products accumulate into C in batch order; otherwise each product is one
// block and the products are dealt to the threads.
template <class T, class Whole, class One>
void for_each_gemm_in_batch(int64_t batch, int64_t M, int64_t N, int64_t K, T beta, int64_t sc, Whole&& whole,
                            One&& one) {
  if (sc == 0) {
    for (int64_t i = 0; i < batch; ++i) whole(i, i == 0 ? beta : T(1));
    return;
  }
  if (batch == 1) {
    whole(0, beta);
    return;
  }
  parallel_for(batch, std::max<int64_t>(1, kGemmMinParallelWork / std::max<int64_t>(1, M * N * K)),
               [&](int64_t b0, int64_t e) {
                 for (int64_t i = b0; i < e; ++i) one(i);
               });
}

}  // namespace rotor::kernels

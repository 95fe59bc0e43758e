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

// Calls block(row0, m, col0, n) for every tile of C [M, N]; the larger output
// dimension is tiled when it is big enough to share.
template <class Block>
void for_each_gemm_tile(int64_t M, int64_t N, int64_t K, Block&& block) {
  if (M * N * K < kGemmMinParallelWork) {
    block(0, M, 0, N);
  } else if (M >= 2 * kGemmTile || (M >= N && M > kGemmTile)) {
    parallel_for((M + kGemmTile - 1) / kGemmTile, 1, [&](int64_t t0, int64_t te) {
      for (int64_t t = t0; t < te; ++t) block(t * kGemmTile, std::min(kGemmTile, M - t * kGemmTile), 0, N);
    });
  } else if (N > kGemmTile) {
    parallel_for((N + kGemmTile - 1) / kGemmTile, 1, [&](int64_t t0, int64_t te) {
      for (int64_t t = t0; t < te; ++t) block(0, M, t * kGemmTile, std::min(kGemmTile, N - t * kGemmTile));
    });
  } else {
    block(0, M, 0, N);
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

// Eigen over rotor's fixed tiles, compiled twice (see bench/CMakeLists.txt), each
// time into its own shared library (see gemm_paths.h):
//   ROTOR_BENCH_EIGEN_USE_BLAS defined -> path (e): EIGEN_USE_BLAS, products are
//     forwarded to Debian's OpenBLAS (OpenMP build); also the "whole" variant (e2).
//   not defined -> path (et): engine/kernels/gemm.cpp as it was before commit
//     9a4bea4 made each tile a cblas_sgemm (single-threaded Eigen kernels per
//     tile), kept so the comparison with the engine's GEMM (path a) survives.
// The tiled function is that former gemm<float> verbatim (plus the macro).
// Inside the OpenMP region every tile's sgemm_ runs single-threaded (OpenBLAS-openmp checks
// omp_in_parallel()); the lone-tile branch runs outside any region and is NOT pinned to one
// thread here, as the engine would have been with only the macro added.
#ifdef ROTOR_BENCH_EIGEN_USE_BLAS
#define EIGEN_USE_BLAS
#define ROTOR_TILED_FN eigen_blas_tiled_gemm
#define ROTOR_WHOLE_FN eigen_blas_whole_gemm
#else
#define ROTOR_TILED_FN eigen_tiled_gemm
#endif
#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Core>
#include <algorithm>

#include "bench/gemm_paths.h"
#include "engine/parallel.h"

namespace rotor::bench {
namespace {
using RM = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Map = Eigen::Map<RM, Eigen::Unaligned, Eigen::OuterStride<>>;
using CMap = Eigen::Map<const RM, Eigen::Unaligned, Eigen::OuterStride<>>;

constexpr int64_t kTile = 128;                 // same as engine/kernels/gemm.cpp
constexpr int64_t kMinParallelWork = 1 << 18;  // ditto

void gemm_block(bool ta, bool tb, int64_t M, int64_t N, int64_t K, int64_t row0, int64_t m, int64_t col0, int64_t n,
                float alpha, const float* A, const float* B, float beta, float* C) {
  Map c(C + row0 * N + col0, m, n, Eigen::OuterStride<>(N));
  if (beta == 0.f)
    c.setZero();
  else if (beta != 1.f)
    c *= beta;
  auto run = [&](const auto& a, const auto& b) { c.noalias() += alpha * (a * b); };
  if (!ta && !tb)
    run(CMap(A + row0 * K, m, K, Eigen::OuterStride<>(K)), CMap(B + col0, K, n, Eigen::OuterStride<>(N)));
  else if (!ta && tb)
    run(CMap(A + row0 * K, m, K, Eigen::OuterStride<>(K)),
        CMap(B + col0 * K, n, K, Eigen::OuterStride<>(K)).transpose());
  else if (ta && !tb)
    run(CMap(A + row0, K, m, Eigen::OuterStride<>(M)).transpose(), CMap(B + col0, K, n, Eigen::OuterStride<>(N)));
  else
    run(CMap(A + row0, K, m, Eigen::OuterStride<>(M)).transpose(),
        CMap(B + col0 * K, n, K, Eigen::OuterStride<>(K)).transpose());
}
}  // namespace

void ROTOR_TILED_FN(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, const float* B,
                    float beta, float* C) {
  if (M == 0 || N == 0) return;
  if (M * N * K < kMinParallelWork) {
    gemm_block(ta, tb, M, N, K, 0, M, 0, N, alpha, A, B, beta, C);
  } else if (M >= 2 * kTile || (M >= N && M > kTile)) {
    parallel_for((M + kTile - 1) / kTile, 1, [&](int64_t t0, int64_t te) {
      for (int64_t t = t0; t < te; ++t) {
        const int64_t r0 = t * kTile, m = std::min(kTile, M - r0);
        gemm_block(ta, tb, M, N, K, r0, m, 0, N, alpha, A, B, beta, C);
      }
    });
  } else if (N > kTile) {
    parallel_for((N + kTile - 1) / kTile, 1, [&](int64_t t0, int64_t te) {
      for (int64_t t = t0; t < te; ++t) {
        const int64_t c0 = t * kTile, n = std::min(kTile, N - c0);
        gemm_block(ta, tb, M, N, K, 0, M, c0, n, alpha, A, B, beta, C);
      }
    });
  } else {
    gemm_block(ta, tb, M, N, K, 0, M, 0, N, alpha, A, B, beta, C);
  }
}

#ifdef ROTOR_WHOLE_FN
void ROTOR_WHOLE_FN(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, const float* B,
                    float beta, float* C) {
  gemm_block(ta, tb, M, N, K, 0, M, 0, N, alpha, A, B, beta, C);
}
#endif

}  // namespace rotor::bench

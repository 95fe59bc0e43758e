#include "engine/kernels/gemm.h"

// Eigen must not start its own threads: parallelism comes from our tiles.
#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Core>

#include "engine/parallel.h"

namespace rotor::kernels {
namespace {

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using Map = Eigen::Map<Mat<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <class T>
using CMap = Eigen::Map<const Mat<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

constexpr int64_t kTile = 128;                 // rows (or columns) per tile
constexpr int64_t kMinParallelWork = 1 << 18;  // multiply-adds below which one thread is faster

// One single-threaded product on a [m, n] block of C whose top-left corner is
// (row0, col0) in the full problem.
template <class T>
void gemm_block(bool ta, bool tb, int64_t M, int64_t N, int64_t K, int64_t row0, int64_t m, int64_t col0,
                int64_t n, T alpha, const T* A, const T* B, T beta, T* C) {
  Map<T> c(C + row0 * N + col0, m, n, Eigen::OuterStride<>(N));
  if (beta == T(0))
    c.setZero();
  else if (beta != T(1))
    c *= beta;
  // A block: rows row0..row0+m of op(A); B block: cols col0..col0+n of op(B).
  auto run = [&](const auto& a, const auto& b) { c.noalias() += alpha * (a * b); };
  if (!ta && !tb)
    run(CMap<T>(A + row0 * K, m, K, Eigen::OuterStride<>(K)), CMap<T>(B + col0, K, n, Eigen::OuterStride<>(N)));
  else if (!ta && tb)
    run(CMap<T>(A + row0 * K, m, K, Eigen::OuterStride<>(K)),
        CMap<T>(B + col0 * K, n, K, Eigen::OuterStride<>(K)).transpose());
  else if (ta && !tb)
    run(CMap<T>(A + row0, K, m, Eigen::OuterStride<>(M)).transpose(), CMap<T>(B + col0, K, n, Eigen::OuterStride<>(N)));
  else
    run(CMap<T>(A + row0, K, m, Eigen::OuterStride<>(M)).transpose(),
        CMap<T>(B + col0 * K, n, K, Eigen::OuterStride<>(K)).transpose());
}

}  // namespace

template <class T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, const T* B, T beta, T* C) {
  if (M == 0 || N == 0) return;
  // Tile the larger output dimension when it is big enough to share.
  if (M * N * K < kMinParallelWork) {
    gemm_block<T>(ta, tb, M, N, K, 0, M, 0, N, alpha, A, B, beta, C);
  } else if (M >= 2 * kTile || (M >= N && M > kTile)) {
    parallel_for((M + kTile - 1) / kTile, 1, [&](int64_t tb0, int64_t te) {
      for (int64_t t = tb0; t < te; ++t) {
        const int64_t r0 = t * kTile, m = std::min(kTile, M - r0);
        gemm_block<T>(ta, tb, M, N, K, r0, m, 0, N, alpha, A, B, beta, C);
      }
    });
  } else if (N > kTile) {
    parallel_for((N + kTile - 1) / kTile, 1, [&](int64_t tb0, int64_t te) {
      for (int64_t t = tb0; t < te; ++t) {
        const int64_t c0 = t * kTile, n = std::min(kTile, N - c0);
        gemm_block<T>(ta, tb, M, N, K, 0, M, c0, n, alpha, A, B, beta, C);
      }
    });
  } else {
    gemm_block<T>(ta, tb, M, N, K, 0, M, 0, N, alpha, A, B, beta, C);
  }
}

template <class T>
void gemm_batched(bool ta, bool tb, int64_t batch, int64_t M, int64_t N, int64_t K, T alpha, const T* A,
                  int64_t sa, const T* B, int64_t sb, T beta, T* C, int64_t sc) {
  if (sc == 0) {  // every product lands in the same C: accumulate in batch order
    for (int64_t i = 0; i < batch; ++i)
      gemm<T>(ta, tb, M, N, K, alpha, A + i * sa, B + i * sb, i == 0 ? beta : T(1), C);
    return;
  }
  if (batch == 1) {
    gemm<T>(ta, tb, M, N, K, alpha, A, B, beta, C);
    return;
  }
  parallel_for(batch, std::max<int64_t>(1, kMinParallelWork / std::max<int64_t>(1, M * N * K)), [&](int64_t b0, int64_t e) {
    for (int64_t i = b0; i < e; ++i)
      gemm_block<T>(ta, tb, M, N, K, 0, M, 0, N, alpha, A + i * sa, B + i * sb, beta, C + i * sc);
  });
}

template void gemm<float>(bool, bool, int64_t, int64_t, int64_t, float, const float*, const float*, float, float*);
template void gemm<double>(bool, bool, int64_t, int64_t, int64_t, double, const double*, const double*, double,
                           double*);
template void gemm_batched<float>(bool, bool, int64_t, int64_t, int64_t, int64_t, float, const float*, int64_t,
                                  const float*, int64_t, float, float*, int64_t);
template void gemm_batched<double>(bool, bool, int64_t, int64_t, int64_t, int64_t, double, const double*, int64_t,
                                   const double*, int64_t, double, double*, int64_t);

}  // namespace rotor::kernels

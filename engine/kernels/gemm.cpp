#include "engine/kernels/gemm.h"

// Each tile is one single-threaded call of Debian's OpenBLAS (OpenMP build):
// measured 1.3-1.45x faster than single-threaded Eigen tiles on transformer
// shapes, about 1.1x torch.matmul (bench/README.md).
#include <cblas.h>
#include <omp.h>

#include <cstdint>

#include "engine/error.h"
#include "engine/kernels/gemm_tiles.h"

namespace rotor::kernels {
namespace {

// OpenBLAS's OpenMP build runs a call made inside an active OpenMP region on
// one thread, so our tiles never nest. Outside a region it would thread a big
// product itself, with last bits that depend on the thread count: a lone tile
// outside a region is pinned to one thread.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas() {
    if (!omp_in_parallel() && omp_get_max_threads() > 1) {
      saved_ = omp_get_max_threads();
      omp_set_num_threads(1);
    }
  }
  ~SingleThreadedBlas() {
    if (saved_) omp_set_num_threads(saved_);
  }
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int saved_ = 0;
};

inline void blas(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha, const float* a, int lda,
                 const float* b, int ldb, float beta, float* c, int ldc) {
  cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void blas(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, double alpha, const double* a, int lda,
                 const double* b, int ldb, double beta, double* c, int ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// One single-threaded product on a [m, n] block of C whose top-left corner is
// (row0, col0) in the full problem.
template <class T>
void gemm_block(bool ta, bool tb, int64_t M, int64_t N, int64_t K, int64_t row0, int64_t m, int64_t col0, int64_t n,
                T alpha, const T* A, const T* B, T beta, T* C) {
  T* c = C + row0 * N + col0;
  if (K == 0) {  // BLAS rejects lda/ldb = 0; C = beta * C
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * N + j] = beta == T(0) ? T(0) : beta * c[i * N + j];
    return;
  }
  SingleThreadedBlas one_thread;
  // A block: rows row0..row0+m of op(A); B block: cols col0..col0+n of op(B).
  const T* a = ta ? A + row0 : A + row0 * K;
  const T* b = tb ? B + col0 * K : B + col0;
  blas(ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
       static_cast<int>(K), alpha, a, static_cast<int>(ta ? M : K), b, static_cast<int>(tb ? K : N), beta, c,
       static_cast<int>(N));
}

}  // namespace

template <class T>
void gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, const T* B, T beta, T* C) {
  if (M == 0 || N == 0) return;
  if (M > INT32_MAX || N > INT32_MAX || K > INT32_MAX) throw ShapeError("gemm: a dimension exceeds BLAS's 32-bit int");
  for_each_gemm_tile(M, N, K, [&](int64_t r0, int64_t m, int64_t c0, int64_t n) {
    gemm_block<T>(ta, tb, M, N, K, r0, m, c0, n, alpha, A, B, beta, C);
  });
}

template <class T>
void gemm_batched(bool ta, bool tb, int64_t batch, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t sa,
                  const T* B, int64_t sb, T beta, T* C, int64_t sc) {
  for_each_gemm_in_batch(
      batch, M, N, K, beta, sc,
      [&](int64_t i, T beta_i) { gemm<T>(ta, tb, M, N, K, alpha, A + i * sa, B + i * sb, beta_i, C + i * sc); },
      [&](int64_t i) { gemm_block<T>(ta, tb, M, N, K, 0, M, 0, N, alpha, A + i * sa, B + i * sb, beta, C + i * sc); });
}

template void gemm<float>(bool, bool, int64_t, int64_t, int64_t, float, const float*, const float*, float, float*);
template void gemm<double>(bool, bool, int64_t, int64_t, int64_t, double, const double*, const double*, double,
                           double*);
template void gemm_batched<float>(bool, bool, int64_t, int64_t, int64_t, int64_t, float, const float*, int64_t,
                                  const float*, int64_t, float, float*, int64_t);
template void gemm_batched<double>(bool, bool, int64_t, int64_t, int64_t, int64_t, double, const double*, int64_t,
                                   const double*, int64_t, double, double*, int64_t);

}  // namespace rotor::kernels

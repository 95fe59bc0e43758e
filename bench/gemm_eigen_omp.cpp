// Path (b): Eigen's own product with Eigen's OpenMP threading. Deliberately
// compiled WITHOUT EIGEN_DONT_PARALLELIZE (built as its own shared library, see
// gemm_paths.h for why).
#ifdef EIGEN_DONT_PARALLELIZE
#error "path (b) must be compiled with Eigen's threading enabled"
#endif
#include <Eigen/Core>

#include "bench/gemm_paths.h"

namespace rotor::bench {
namespace {
using RM = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Map = Eigen::Map<RM>;
using CMap = Eigen::Map<const RM>;
}  // namespace

void eigen_omp_set_threads(int n) { Eigen::setNbThreads(n); }
int eigen_omp_threads() { return Eigen::nbThreads(); }

void eigen_omp_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, const float* B,
                    float beta, float* C) {
  Map c(C, M, N);
  if (beta == 0.f)
    c.setZero();
  else if (beta != 1.f)
    c *= beta;
  CMap a(A, ta ? K : M, ta ? M : K), b(B, tb ? N : K, tb ? K : N);
  if (!ta && !tb)
    c.noalias() += alpha * (a * b);
  else if (!ta && tb)
    c.noalias() += alpha * (a * b.transpose());
  else if (ta && !tb)
    c.noalias() += alpha * (a.transpose() * b);
  else
    c.noalias() += alpha * (a.transpose() * b.transpose());
}

}  // namespace rotor::bench

#pragma once
// Alternative GEMM implementations compared by bench_gemm. Same contract as
// rotor::kernels::gemm: row-major C[M,N] = alpha * op(A) op(B) + beta * C, with A
// stored [M,K] (or [K,M] if ta) and B stored [K,N] (or [N,K] if tb).
//
// The Eigen-based paths live in their own shared libraries (built with hidden
// visibility), because each is compiled with different Eigen macros
// (EIGEN_DONT_PARALLELIZE in the engine, OpenMP threading in (b), EIGEN_USE_BLAS
// in (e)). Linked statically into one program, the identically named Eigen
// template instantiations would be merged by the linker and one TU's flavour
// would silently win for all of them (an ODR violation).
#include <cstdint>

#define ROTOR_BENCH_API __attribute__((visibility("default")))

namespace rotor::bench {

// (b) one whole Eigen product, Eigen's own OpenMP threading (no EIGEN_DONT_PARALLELIZE).
ROTOR_BENCH_API void eigen_omp_set_threads(int n);
ROTOR_BENCH_API int eigen_omp_threads();
ROTOR_BENCH_API void eigen_omp_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                                    const float* B, float beta, float* C);

// (e) Eigen compiled with EIGEN_USE_BLAS (products forwarded to OpenBLAS's sgemm_).
// tiled: the engine's former Eigen-tiled gemm.cpp (fixed 128-row/column tiles over
//        OpenMP, before commit 9a4bea4 made each tile a cblas_sgemm) with EIGEN_USE_BLAS.
// whole: one Eigen product, threads are OpenBLAS's.
ROTOR_BENCH_API void eigen_blas_tiled_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha,
                                           const float* A, const float* B, float beta, float* C);
ROTOR_BENCH_API void eigen_blas_whole_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha,
                                           const float* A, const float* B, float beta, float* C);

// (et) the engine's former Eigen-tiled gemm.cpp (single-threaded Eigen kernels per
// tile), built without EIGEN_USE_BLAS: a fixed reference for path (a).
ROTOR_BENCH_API void eigen_tiled_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                                      const float* B, float beta, float* C);

}  // namespace rotor::bench

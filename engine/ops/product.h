#pragma once
// The matrix-product dispatch shared by the op files (not part of the public
// API): a float product takes run.precision's format (precision.h), bf16 on
// kernels::gemm_bf16 and fp32 on kernels::gemm; double is always exact fp64.
#include <cstdint>
#include <type_traits>

#include "engine/dtype.h"
#include "engine/kernels/gemm.h"
#include "engine/kernels/gemm_bf16.h"
#include "engine/precision.h"

namespace rotor::detail {

// The format of a product of `dtype` inputs. A forward reads the setting once
// and its backward reuses it, whichever thread runs the backward.
inline Precision product_precision(DType dtype) { return dtype == DType::F32 ? matmul_precision() : Precision::fp32; }

// C = op(A) op(B) + beta C in precision p (kernels::gemm's arguments).
template <class T>
void product(Precision p, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* A, const T* B, T beta, T* C) {
  if constexpr (std::is_same_v<T, float>)
    if (p == Precision::bf16) return kernels::gemm_bf16(ta, tb, M, N, K, 1.0f, A, B, beta, C);
  kernels::gemm<T>(ta, tb, M, N, K, T(1), A, B, beta, C);
}

// `batch` products in precision p (kernels::gemm_batched's arguments).
template <class T>
void batched_product(Precision p, bool ta, bool tb, int64_t batch, int64_t M, int64_t N, int64_t K, const T* A,
                     int64_t sa, const T* B, int64_t sb, T beta, T* C, int64_t sc) {
  if constexpr (std::is_same_v<T, float>)
    if (p == Precision::bf16)
      return kernels::gemm_batched_bf16(ta, tb, batch, M, N, K, 1.0f, A, sa, B, sb, beta, C, sc);
  kernels::gemm_batched<T>(ta, tb, batch, M, N, K, T(1), A, sa, B, sb, beta, C, sc);
}

}  // namespace rotor::detail

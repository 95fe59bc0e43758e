// The attention kernel's tile pieces: the product against the portable loop
// (sizes that leave partial vectors, partial row blocks, padded leading dims),
// and the vectorised row max and exp against std::max and std::exp.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/kernels/attention_tile.h"
#include "engine/random.h"

using rotor::kernels::exp_shifted;
using rotor::kernels::row_max;
using rotor::kernels::tile_matmul;
using rotor::kernels::tile_matmul_at;
using rotor::kernels::tile_matmul_at_portable;
using rotor::kernels::tile_matmul_portable;

namespace {

template <class T>
std::vector<T> random_values(int64_t n, uint64_t seed) {
  const rotor::RandomKey key{seed, rotor::stream_id("tile-test"), 0};
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(key.normal(static_cast<uint64_t>(i)));
  return v;
}

// A is [M, K] for tile_matmul, [K, M] for tile_matmul_at (`transposed_a`).
template <class T>
void check_against_portable(double tolerance, bool transposed_a) {
  const auto product = transposed_a ? tile_matmul_at<T> : tile_matmul<T>;
  const auto reference = transposed_a ? tile_matmul_at_portable<T> : tile_matmul_portable<T>;
  for (int64_t M : {1, 3, 4, 7, 64})
    for (int64_t N : {1, 16, 17, 50, 64, 100})
      for (int64_t K : {1, 7, 64})
        for (bool accumulate : {false, true}) {
          INFO("M " << M << " N " << N << " K " << K << " accumulate " << accumulate << " A^T " << transposed_a);
          const int64_t lda = (transposed_a ? M : K) + 3, ldb = N + 5, ldc = N + 2;
          const auto A = random_values<T>((transposed_a ? K : M) * lda, 1), B = random_values<T>(K * ldb, 2);
          auto C = random_values<T>(M * ldc, 3), expected = C;
          product(M, N, K, A.data(), lda, B.data(), ldb, C.data(), ldc, accumulate);
          reference(M, N, K, A.data(), lda, B.data(), ldb, expected.data(), ldc, accumulate);
          double worst = 0.0;
          for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < ldc; ++j) {
              const double d = std::abs(double(C[i * ldc + j]) - double(expected[i * ldc + j]));
              worst = std::max(worst, j < N ? d : (d == 0.0 ? 0.0 : INFINITY));  // padding untouched
            }
          CHECK(worst <= tolerance);
        }
}

}  // namespace

TEST_CASE("attention tile products equal the portable loop (float and double, A and A^T)") {
  for (bool transposed_a : {false, true}) {
    check_against_portable<float>(1e-4, transposed_a);
    check_against_portable<double>(0.0, transposed_a);
  }
}

TEST_CASE("the A^T tile product is the plain product of the explicit transpose") {
  const int64_t M = 13, N = 40, K = 9;
  const auto A = random_values<float>(K * M, 5), B = random_values<float>(K * N, 6);
  std::vector<float> At(static_cast<size_t>(M * K));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t i = 0; i < M; ++i) At[i * K + k] = A[k * M + i];
  std::vector<float> C(static_cast<size_t>(M * N)), expected(C.size());
  tile_matmul_at<float>(M, N, K, A.data(), M, B.data(), N, C.data(), N, false);
  tile_matmul<float>(M, N, K, At.data(), K, B.data(), N, expected.data(), N, false);
  CHECK(C == expected);  // same products summed in the same order: same bits
}

TEST_CASE("attention row max and shifted exp match std::max and std::exp") {
  const float inf = std::numeric_limits<float>::infinity();
  for (int64_t n : {1, 5, 16, 17, 64}) {
    INFO("n " << n);
    std::vector<float> x = random_values<float>(n, 4);
    for (int64_t c = 0; c < n; ++c) x[c] = 30.0f * x[c] - 20.0f;  // roughly [-110, 70]
    x[0] = -inf;                                                  // a masked score
    if (n > 3) x[3] = -103.0f;                                    // near the flush-to-zero edge
    float expected_max = -inf;
    for (float v : x) expected_max = std::max(expected_max, v);
    CHECK(row_max(x.data(), n) == expected_max);
    const float shift = n > 1 ? expected_max : 0.0f;
    std::vector<float> e = x;
    const float sum = exp_shifted(e.data(), n, shift);
    double expected_sum = 0.0;
    for (int64_t c = 0; c < n; ++c) {
      const double want = std::exp(double(x[c] - shift));  // the kernel subtracts in float too
      expected_sum += want;
      INFO("x " << x[c] << " shift " << shift);
      if (want < 1e-37)  // below float's normal range: 0 or a tiny denormal
        CHECK(e[c] < 1e-37f);
      else
        CHECK(std::abs(e[c] - want) <= 4e-7 * want);
    }
    CHECK(std::abs(sum - expected_sum) <= 1e-6 * expected_sum);
  }
  std::vector<float> nan{std::nanf("")};
  CHECK(std::isnan(exp_shifted(nan.data(), 1, 0.0f)));
  CHECK(std::isnan(nan[0]));
}

// The attention kernel's tile product against the portable loop, over sizes
// that leave partial vectors, partial row blocks and padded leading dims.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "engine/kernels/attention_tile.h"
#include "engine/random.h"

using rotor::kernels::tile_matmul;
using rotor::kernels::tile_matmul_portable;

namespace {

template <class T>
std::vector<T> random_values(int64_t n, uint64_t seed) {
  const rotor::RandomKey key{seed, rotor::stream_id("tile-test"), 0};
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(key.normal(static_cast<uint64_t>(i)));
  return v;
}

template <class T>
void check_against_portable(double tolerance) {
  for (int64_t M : {1, 3, 4, 64})
    for (int64_t N : {1, 16, 17, 50, 64, 100})
      for (int64_t K : {1, 7, 64})
        for (bool accumulate : {false, true}) {
          INFO("M " << M << " N " << N << " K " << K << " accumulate " << accumulate);
          const int64_t lda = K + 3, ldb = N + 5, ldc = N + 2;
          const auto A = random_values<T>(M * lda, 1), B = random_values<T>(K * ldb, 2);
          auto C = random_values<T>(M * ldc, 3), expected = C;
          tile_matmul<T>(M, N, K, A.data(), lda, B.data(), ldb, C.data(), ldc, accumulate);
          tile_matmul_portable<T>(M, N, K, A.data(), lda, B.data(), ldb, expected.data(), ldc, accumulate);
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

TEST_CASE("attention tile product equals the portable loop (float and double)") {
  check_against_portable<float>(1e-4);
  check_against_portable<double>(0.0);
}

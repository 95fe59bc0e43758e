// The fused attention's bf16 tile products: packing, the product against a
// double reference on the bf16-rounded inputs (both layouts of A, odd K, edge
// columns, accumulate), and the portable loop against the AVX-512 BF16 kernel
// (same roundings in the same order: same bits).
#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <vector>

#include "engine/bf16.h"
#include "engine/kernels/attention_tile_bf16.h"
#include "engine/kernels/cpu_features.h"
#include "engine/random.h"

using namespace rotor;
using namespace rotor::kernels;

namespace {

std::vector<float> random_floats(int64_t n, uint64_t seed) {
  const RandomKey key{seed, stream_id("tile-bf16-test"), 0};
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(key.normal(static_cast<uint64_t>(i)));
  return v;
}

// A [M, K] (row-major, or stored [K, M] when `transposed_a`) and B [K, N] packed into pairs.
struct Operands {
  int64_t M, N, K;
  bool transposed_a;
  std::vector<float> a, b;  // fp32 originals
  std::vector<uint32_t> a_pairs, b_pairs;
  int64_t ldb;

  Operands(int64_t m, int64_t n, int64_t k, bool t) : M(m), N(n), K(k), transposed_a(t), ldb(n + 3) {
    a = random_floats(M * K, 1);
    b = random_floats(K * N, 2);
    if (transposed_a) {  // stored [K, M]: pairs of its rows
      a_pairs.resize(static_cast<size_t>((K + 1) / 2 * M));
      pack_column_pairs(a.data(), K, M, M, a_pairs.data(), M);
    } else {
      a_pairs.resize(static_cast<size_t>(M * ((K + 1) / 2)));
      pack_row_pairs(a.data(), M, K, K, a_pairs.data(), (K + 1) / 2);
    }
    b_pairs.resize(static_cast<size_t>((K + 1) / 2 * ldb));
    pack_column_pairs(b.data(), K, N, N, b_pairs.data(), ldb);
  }
  Bf16PairsA pairs_a() const {
    return transposed_a ? Bf16PairsA{a_pairs.data(), 1, M} : Bf16PairsA{a_pairs.data(), (K + 1) / 2, 1};
  }
  double a_at(int64_t i, int64_t k) const { return round_to_bf16(transposed_a ? a[k * M + i] : a[i * K + k]); }
  double b_at(int64_t k, int64_t j) const { return round_to_bf16(b[k * N + j]); }
};

}  // namespace

TEST_CASE("bf16 packing rounds to nearest even and pads an odd count with zero") {
  const std::vector<float> src{1.0f, 1.00390625f, 1.01171875f, -3.0f, 7.0f};  // ties at 2^-8: to even
  std::vector<uint32_t> rows(3, 0xdeadbeef), cols(5, 0xdeadbeef);
  pack_row_pairs(src.data(), 1, 5, 5, rows.data(), 3);
  CHECK(rows[0] == (0x3f80u | 0x3f80u << 16));  // 1 + 2^-8 ties to 1
  CHECK(rows[1] == (0x3f82u | 0xc040u << 16));  // 1 + 3 * 2^-8 ties up to 1 + 2^-6
  CHECK(rows[2] == 0x40e0u);                    // 7, then a zero odd half
  pack_column_pairs(src.data(), 5, 1, 1, cols.data(), 1);
  CHECK(cols[0] == rows[0]);
  CHECK(cols[1] == rows[1]);
  CHECK(cols[2] == rows[2]);
}

TEST_CASE("bf16 tile products match a double reference on the rounded inputs") {
  // Each of the K products is exact in fp32 and each of the K additions rounds
  // once: |error| <= K 2^-24 sum_k |a_ik b_kj| (the standard summation bound).
  for (bool transposed_a : {false, true})
    for (int64_t M : {1, 5, 7, 64})
      for (int64_t N : {1, 16, 17, 64, 70})
        for (int64_t K : {1, 2, 7, 64})
          for (bool accumulate : {false, true}) {
            INFO("M " << M << " N " << N << " K " << K << " A^T " << transposed_a << " accumulate " << accumulate);
            const Operands op(M, N, K, transposed_a);
            const int64_t ldc = N + 2;
            std::vector<float> C = random_floats(M * ldc, 3), start = C;
            tile_matmul_bf16(M, N, K, op.pairs_a(), op.b_pairs.data(), op.ldb, C.data(), ldc, accumulate);
            double worst = 0.0;
            for (int64_t i = 0; i < M; ++i)
              for (int64_t j = 0; j < ldc; ++j) {
                if (j >= N) {
                  CHECK(C[i * ldc + j] == start[i * ldc + j]);  // padding untouched
                  continue;
                }
                double want = accumulate ? start[i * ldc + j] : 0.0, magnitude = std::abs(want);
                for (int64_t k = 0; k < K; ++k) {
                  want += op.a_at(i, k) * op.b_at(k, j);
                  magnitude += std::abs(op.a_at(i, k) * op.b_at(k, j));
                }
                worst = std::max(worst, std::abs(C[i * ldc + j] - want) / ((K + 1) * 0x1p-24 * magnitude + 1e-30));
              }
            CHECK(worst <= 1.0);
          }
}

TEST_CASE("the portable bf16 tile product gives the native kernel's bits") {
  if (!cpu_has_bf16_dot()) {
    WARN("this CPU has no AVX-512 BF16: only the portable path runs");
    return;
  }
  for (bool transposed_a : {false, true})
    for (int64_t M : {1, 5, 64})
      for (int64_t N : {3, 16, 50, 64})
        for (int64_t K : {1, 9, 64})
          for (bool accumulate : {false, true}) {
            INFO("M " << M << " N " << N << " K " << K << " A^T " << transposed_a << " accumulate " << accumulate);
            const Operands op(M, N, K, transposed_a);
            std::vector<float> native = random_floats(M * N, 4), portable = native;
            tile_matmul_bf16(M, N, K, op.pairs_a(), op.b_pairs.data(), op.ldb, native.data(), N, accumulate);
            tile_matmul_bf16_portable(M, N, K, op.pairs_a(), op.b_pairs.data(), op.ldb, portable.data(), N, accumulate);
            CHECK(native == portable);
          }
}

TEST_CASE("bf16 tile products never read the odd half of an odd K's last pair") {
  const float nan = std::nanf("");
  const std::vector<float> a{2.0f, nan}, b{3.0f, nan};  // K = 1: the NaNs sit where the padding would
  std::vector<uint32_t> a_pairs(1), b_pairs(1);
  pack_row_pairs(a.data(), 1, 2, 2, a_pairs.data(), 1);
  pack_row_pairs(b.data(), 1, 2, 2, b_pairs.data(), 1);
  for (bool portable : {false, true}) {
    float c = 1.0f;
    (portable ? tile_matmul_bf16_portable : tile_matmul_bf16)(1, 1, 1, Bf16PairsA{a_pairs.data(), 1, 1}, b_pairs.data(),
                                                              1, &c, 1, true);
    CHECK(c == 7.0f);
  }
}

TEST_CASE("the AVX-512 BF16 packs write the portable packs' words, and nothing past them") {
  if (!cpu_has_bf16_dot()) {
    WARN("this CPU has no AVX-512 BF16: only the portable packs run");
    return;
  }
  // Ties, a NaN, infinities, denormals of both signs, the largest floats (which round to infinity).
  std::vector<float> src = random_floats(70 * 71, 5);
  const std::vector<float> special{1.00390625f, 1.01171875f, std::nanf(""), -INFINITY, INFINITY,
                                   1e-40f,      -1e-40f,     3.4028235e38f, -0.0f,     FLT_MIN};
  for (size_t i = 0; i < src.size(); i += 7) src[i] = special[(i / 7) % special.size()];
  for (int64_t rows : {1, 2, 5, 64})
    for (int64_t cols : {1, 15, 16, 17, 33, 64}) {
      INFO("rows " << rows << " cols " << cols);
      const int64_t lds = 71, ldd = 40;  // strides wider than any row, so a stray write shows
      std::vector<uint32_t> fast(70 * ldd, 0xdeadbeef), slow = fast;
      pack_row_pairs(src.data(), rows, cols, lds, fast.data(), ldd);
      pack_row_pairs_portable(src.data(), rows, cols, lds, slow.data(), ldd);
      CHECK(fast == slow);
      std::vector<uint32_t> fast_cols(40 * 70, 0xdeadbeef), slow_cols = fast_cols;
      pack_column_pairs(src.data(), rows, cols, lds, fast_cols.data(), 70);
      pack_column_pairs_portable(src.data(), rows, cols, lds, slow_cols.data(), 70);
      CHECK(fast_cols == slow_cols);
    }
}

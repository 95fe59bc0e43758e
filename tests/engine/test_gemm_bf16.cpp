// The bf16 GEMM (engine/kernels/gemm_bf16.h), native and portable paths,
// against a double product of the bf16-rounded inputs.
//
// Error bound. A product of two bf16 values (8 significant bits each) is exact
// in fp32 (16 <= 24 bits), so the only errors are the fp32 additions: the K
// products are summed in some fixed tree (a chain for the vdpbf16ps kernel,
// OpenBLAS's blocking for the portable path) with at most K - 1 roundings on
// any path, then alpha * S and + beta * C add at most 3 more. With u = 2^-24,
// |C - C_exact| <= gamma_{K+3} (|alpha| sum_k |a_ik||b_kj| + |beta||C_ij|),
// gamma_n = n u / (1 - n u) (Higham, Accuracy and Stability, 3.1 and 4.2);
// a batch summed into one C adds one rounding per product. (The native path
// counts fp32 denormals as zero; the inputs here have none.)
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "engine/bf16.h"
#include "engine/kernels/gemm_bf16.h"
#include "optim_fixtures.h"

using namespace rotor;
using namespace rotor::kernels;
using test::ThreadCountGuard;

namespace {

struct Case {
  bool ta, tb;
  int64_t M, N, K;
  float alpha, beta;
};

std::vector<float> uniform(int64_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(g);
  return v;
}

// C's starting contents: random, or NaN where beta == 0 must ignore them.
std::vector<float> start_c(const Case& c, uint64_t seed) {
  if (c.beta == 0.f) return std::vector<float>(static_cast<size_t>(c.M * c.N), std::nanf(""));
  return uniform(c.M * c.N, seed);
}

float op_a(const Case& c, const std::vector<float>& A, int64_t i, int64_t k) {
  return A[static_cast<size_t>(c.ta ? k * c.M + i : i * c.K + k)];
}
float op_b(const Case& c, const std::vector<float>& B, int64_t k, int64_t j) {
  return B[static_cast<size_t>(c.tb ? j * c.K + k : k * c.N + j)];
}

// The double product of the rounded inputs and, per element, the bound above
// (with `extra_roundings` more, for batches summed into one C).
struct Reference {
  std::vector<double> exact, bound;
};

Reference reference_product(const Case& c, const std::vector<float>& A, const std::vector<float>& B,
                            const std::vector<float>& C0, int extra_roundings = 0) {
  const double u = std::ldexp(1.0, -24), n = double(c.K + 3 + extra_roundings);
  const double gamma = n * u / (1 - n * u);
  Reference r{std::vector<double>(static_cast<size_t>(c.M * c.N)), std::vector<double>(static_cast<size_t>(c.M * c.N))};
  for (int64_t i = 0; i < c.M; ++i)
    for (int64_t j = 0; j < c.N; ++j) {
      double exact = 0, magnitude = 0;
      for (int64_t k = 0; k < c.K; ++k) {
        const double p = double(round_to_bf16(op_a(c, A, i, k))) * double(round_to_bf16(op_b(c, B, k, j)));
        exact += p;
        magnitude += std::fabs(p);
      }
      const size_t e = static_cast<size_t>(i * c.N + j);
      r.exact[e] = c.alpha * exact + (c.beta != 0.f ? double(c.beta) * C0[e] : 0.0);
      r.bound[e] = gamma * (std::fabs(c.alpha) * magnitude + (c.beta != 0.f ? std::fabs(double(c.beta) * C0[e]) : 0.0));
    }
  return r;
}

// Every element of `got` within `factor` bounds of `expected`; the first misses named.
void require_close(const std::vector<float>& got, const std::vector<double>& expected, const Reference& ref,
                   double factor = 1) {
  int64_t bad = 0;
  for (size_t e = 0; e < got.size(); ++e) {
    const double err = std::fabs(double(got[e]) - expected[e]);
    if (!(err <= factor * ref.bound[e]) && bad++ < 3)
      FAIL_CHECK("element " << e << " = " << got[e] << ", expected " << expected[e] << ", bound "
                            << factor * ref.bound[e]);
  }
  CHECK(bad == 0);
}

void require_within_bound(const Case& c, const std::vector<float>& A, const std::vector<float>& B,
                          const std::vector<float>& C0, const std::vector<float>& got, int extra_roundings = 0) {
  const Reference ref = reference_product(c, A, B, C0, extra_roundings);
  require_close(got, ref.exact, ref);
}

using GemmFn = void (*)(bool, bool, int64_t, int64_t, int64_t, float, const float*, const float*, float, float*);

std::vector<float> run_gemm(GemmFn f, const Case& c, const std::vector<float>& A, const std::vector<float>& B,
                            std::vector<float> C) {
  f(c.ta, c.tb, c.M, c.N, c.K, c.alpha, A.data(), B.data(), c.beta, C.data());
  return C;
}

std::vector<Case> cases() {
  const int64_t shapes[][3] = {{1, 1, 1},      {1, 1, 0},       {5, 7, 0},     {7, 5, 3},
                               {9, 33, 600},   {37, 45, 513},   {130, 67, 31}, {300, 129, 257},
                               {100, 300, 64}, {260, 70, 1030}, {20, 40, 2051}};
  const float scales[][2] = {{1.f, 0.f}, {0.5f, 1.f}, {-1.25f, 0.75f}, {0.f, 0.5f}};  // alpha 0: C = beta C
  std::vector<Case> out;
  for (int t = 0; t < 4; ++t)
    for (const auto& s : shapes)
      for (const auto& ab : scales) out.push_back({(t & 1) != 0, (t & 2) != 0, s[0], s[1], s[2], ab[0], ab[1]});
  return out;
}

bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

using BatchedFn = void (*)(bool, bool, int64_t, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                           int64_t, float, float*, int64_t);

std::vector<float> slice(const std::vector<float>& v, int64_t i, int64_t size) {
  return std::vector<float>(v.begin() + i * size, v.begin() + (i + 1) * size);
}

// `batch` products summed into one C, written as one product of depth batch * K:
// op(A) = [op(A_0) ... op(A_b)], op(B) = [op(B_0); ...; op(B_b)], in c's transposes.
void require_batch_sum_within_bound(const Case& c, int64_t batch, const std::vector<float>& A,
                                    const std::vector<float>& B, const std::vector<float>& C0,
                                    const std::vector<float>& got) {
  Case deep = c;
  deep.K = batch * c.K;
  std::vector<float> Ad(static_cast<size_t>(c.M * deep.K)), Bd(static_cast<size_t>(deep.K * c.N));
  for (int64_t i = 0; i < batch; ++i) {
    const auto Ai = slice(A, i, c.M * c.K), Bi = slice(B, i, c.K * c.N);
    for (int64_t k = 0; k < c.K; ++k) {
      const int64_t kd = i * c.K + k;
      for (int64_t r = 0; r < c.M; ++r)
        Ad[static_cast<size_t>(c.ta ? kd * c.M + r : r * deep.K + kd)] = op_a(c, Ai, r, k);
      for (int64_t j = 0; j < c.N; ++j)
        Bd[static_cast<size_t>(c.tb ? j * deep.K + kd : kd * c.N + j)] = op_b(c, Bi, k, j);
    }
  }
  require_within_bound(deep, Ad, Bd, C0, got, int(batch));
}

}  // namespace

TEST_CASE("gemm_bf16 and its portable path are within fp32 summation's bound of the rounded inputs' product") {
  uint64_t seed = 1;
  for (const Case& c : cases()) {
    INFO("ta " << c.ta << " tb " << c.tb << " M " << c.M << " N " << c.N << " K " << c.K << " alpha " << c.alpha
               << " beta " << c.beta << (cpu_has_bf16_dot() ? " (native)" : " (portable)"));
    const auto A = uniform(c.M * c.K, seed++), B = uniform(c.K * c.N, seed++), C0 = start_c(c, seed++);
    require_within_bound(c, A, B, C0, run_gemm(gemm_bf16, c, A, B, C0));
    require_within_bound(c, A, B, C0, run_gemm(gemm_bf16_rounded_fp32, c, A, B, C0));
  }
}

TEST_CASE("gemm_bf16 rounds its inputs to the nearest bf16, ties to even, in every transpose") {
  // C = A I: one nonzero product per element, so C is A's rounding exactly.
  // Values near ties (and on them) exercise the rounding.
  const int64_t M = 19, K = 37;
  std::vector<float> A = uniform(M * K, 7);
  for (int64_t i = 0; i < M * K; i += 3) A[static_cast<size_t>(i)] = 1.f + std::ldexp(float(2 * (i % 5) + 1), -8);
  for (int t = 0; t < 4; ++t) {
    const bool ta = t & 1, tb = t & 2;
    INFO("ta " << ta << " tb " << tb);
    std::vector<float> a(A.size()), I(static_cast<size_t>(K * K), 0.f), C(static_cast<size_t>(M * K));
    for (int64_t i = 0; i < M; ++i)
      for (int64_t k = 0; k < K; ++k) a[static_cast<size_t>(ta ? k * M + i : i * K + k)] = A[i * K + k];
    for (int64_t k = 0; k < K; ++k) I[static_cast<size_t>(k * K + k)] = 1.f;
    gemm_bf16(ta, tb, M, K, K, 1.f, a.data(), I.data(), 0.f, C.data());
    int64_t bad = 0;
    for (int64_t i = 0; i < M * K; ++i) bad += C[static_cast<size_t>(i)] != round_to_bf16(A[static_cast<size_t>(i)]);
    CHECK(bad == 0);
  }
}

TEST_CASE("gemm_batched_bf16 and its portable path: own and shared (stride 0) operands, products summed into one C") {
  const int64_t batch = 3;
  for (BatchedFn f : {BatchedFn(gemm_batched_bf16), BatchedFn(gemm_batched_bf16_rounded_fp32)})
    for (int t = 0; t < 4; ++t) {
      const Case c{(t & 1) != 0, (t & 2) != 0, 21, 35, 300, 0.75f, 0.5f};
      INFO("ta " << c.ta << " tb " << c.tb << (f == gemm_batched_bf16 ? " gemm_batched_bf16" : " portable"));
      const auto A = uniform(batch * c.M * c.K, 11 + t), B = uniform(batch * c.K * c.N, 21 + t);
      const auto C0 = uniform(batch * c.M * c.N, 31 + t);
      const int64_t sa = c.M * c.K, sb = c.K * c.N, sc = c.M * c.N;
      std::vector<float> C = C0;  // own A, B shared, own C
      f(c.ta, c.tb, batch, c.M, c.N, c.K, c.alpha, A.data(), sa, B.data(), 0, c.beta, C.data(), sc);
      for (int64_t i = 0; i < batch; ++i)
        require_within_bound(c, slice(A, i, sa), slice(B, 0, sb), slice(C0, i, sc), slice(C, i, sc));
      C = C0;  // A shared, own B, own C
      f(c.ta, c.tb, batch, c.M, c.N, c.K, c.alpha, A.data(), 0, B.data(), sb, c.beta, C.data(), sc);
      for (int64_t i = 0; i < batch; ++i)
        require_within_bound(c, slice(A, 0, sa), slice(B, i, sb), slice(C0, i, sc), slice(C, i, sc));
      std::vector<float> acc = slice(C0, 0, sc);  // every product into one C: beta C0 + sum_i alpha A_i B_i
      f(c.ta, c.tb, batch, c.M, c.N, c.K, c.alpha, A.data(), sa, B.data(), sb, c.beta, acc.data(), 0);
      require_batch_sum_within_bound(c, batch, A, B, slice(C0, 0, sc), acc);
    }
}

TEST_CASE("gemm_bf16 gives the same bits with one thread and with two, on both paths") {
  for (int t = 0; t < 4; ++t) {
    const Case c{(t & 1) != 0, (t & 2) != 0, 520, 300, 1100, 1.f, 1.f};
    const Case wide{c.ta, c.tb, 200, 600, 300, 1.f, 0.f};  // column tiles
    for (const Case& k : {c, wide}) {
      INFO("ta " << k.ta << " tb " << k.tb << " M " << k.M << " N " << k.N);
      const auto A = uniform(k.M * k.K, 41 + t), B = uniform(k.K * k.N, 51 + t), C0 = uniform(k.M * k.N, 61 + t);
      for (GemmFn f : {GemmFn(gemm_bf16), GemmFn(gemm_bf16_rounded_fp32)}) {
        std::vector<float> one, two;
        {
          ThreadCountGuard threads(1);
          one = run_gemm(f, k, A, B, C0);
        }
        {
          ThreadCountGuard threads(2);
          two = run_gemm(f, k, A, B, C0);
        }
        CHECK(same_bits(one, two));
      }
    }
  }
  const Case c{false, true, 100, 90, 120, 1.f, 1.f};  // a batch dealt to the threads, and one summed into C
  const int64_t batch = 6, sa = c.M * c.K, sb = c.K * c.N, sc = c.M * c.N;
  const auto A = uniform(batch * sa, 101), B = uniform(batch * sb, 102), C0 = uniform(batch * sc, 103);
  for (BatchedFn f : {BatchedFn(gemm_batched_bf16), BatchedFn(gemm_batched_bf16_rounded_fp32)})
    for (int64_t stride_c : {sc, int64_t{0}}) {
      std::vector<float> out[2] = {C0, C0};
      for (int threads : {1, 2}) {
        ThreadCountGuard guard(threads);
        f(c.ta, c.tb, batch, c.M, c.N, c.K, c.alpha, A.data(), sa, B.data(), sb, c.beta, out[threads - 1].data(),
          stride_c);
      }
      CHECK(same_bits(out[0], out[1]));
    }
}

TEST_CASE("the native bf16 kernel and the portable path agree within twice the bound") {
  if (!cpu_has_bf16_dot()) {
    WARN("no AVX-512 BF16 on this CPU: gemm_bf16 is the portable path, nothing to compare");
    return;
  }
  for (int t = 0; t < 4; ++t) {
    const Case c{(t & 1) != 0, (t & 2) != 0, 150, 260, 1001, 1.f, 0.f};
    INFO("ta " << c.ta << " tb " << c.tb);
    const auto A = uniform(c.M * c.K, 71 + t), B = uniform(c.K * c.N, 81 + t), C0 = start_c(c, 91 + t);
    const auto native = run_gemm(gemm_bf16, c, A, B, C0), portable = run_gemm(gemm_bf16_rounded_fp32, c, A, B, C0);
    const Reference ref = reference_product(c, A, B, C0);
    require_close(native, std::vector<double>(portable.begin(), portable.end()), ref, 2);
  }
}

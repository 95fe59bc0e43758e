// bench_attention_tile: the tile products inside the fused attention kernel,
// C[64, 64] += A[64, 64] B[64, 64] in fp32, one thread, operands in L1, with
//   eigen     Eigen 3.4 fixed-size row-major matrices, C.noalias() += A * B
//   openblas  one cblas_sgemm call (OpenBLAS pinned to one thread)
//   avx512    rotor::kernels::tile_matmul (hand-vectorised; the kernel's choice)
//   portable  rotor::kernels::tile_matmul_portable (the fallback without AVX-512)
// Variants run round-robin in each round (interleaved); medians over rounds.
// Usage: bench_attention_tile [--rounds 21] [--calls 4000]
#include <cblas.h>

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engine/kernels/attention_tile.h"

extern "C" void openblas_set_num_threads(int);
extern "C" char* openblas_get_corename(void);

namespace {

constexpr int kSize = 64;
using Mat = Eigen::Matrix<float, kSize, kSize, Eigen::RowMajor>;

struct Variant {
  const char* name;
  std::function<void(const float*, const float*, float*)> run;  // C += A B
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Same result from every variant (one call on zeros) before timing; the
// portable kernel (variants[3]) is the reference.
void print_agreement(const std::vector<Variant>& variants, const std::vector<float>& a, const std::vector<float>& b) {
  const int n = kSize;
  std::vector<float> ref(n * n, 0.0f);
  variants[3].run(a.data(), b.data(), ref.data());
  for (const Variant& v : variants) {
    std::vector<float> c(n * n, 0.0f);
    v.run(a.data(), b.data(), c.data());
    double err = 0;
    for (int i = 0; i < n * n; ++i) err = std::max(err, double(std::abs(c[i] - ref[i])));
    std::printf("%-9s max |C - portable| = %.3g\n", v.name, err);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 21, calls = 4000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rounds"))
      rounds = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--calls"))
      calls = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  openblas_set_num_threads(1);
  const int n = kSize;
  std::vector<float> a(n * n), b(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = std::sin(0.1f * i) * 0.01f;
    b[i] = std::cos(0.07f * i) * 0.01f;
  }
  const std::vector<Variant> variants{
      {"eigen", [&](const float* x, const float* y,
                    float* c) { Eigen::Map<Mat>(c).noalias() += Eigen::Map<const Mat>(x) * Eigen::Map<const Mat>(y); }},
      {"openblas",
       [&](const float* x, const float* y, float* c) {
         cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, x, n, y, n, 1.0f, c, n);
       }},
      {"avx512", [&](const float* x, const float* y,
                     float* c) { rotor::kernels::tile_matmul<float>(n, n, n, x, n, y, n, c, n, true); }},
      {"portable", [&](const float* x, const float* y,
                       float* c) { rotor::kernels::tile_matmul_portable<float>(n, n, n, x, n, y, n, c, n, true); }},
  };
  print_agreement(variants, a, b);
  std::vector<std::vector<double>> gflops(variants.size());
  const double flops = 2.0 * n * n * n * calls;
  std::vector<float> c(n * n, 0.0f);
  for (int r = 0; r < rounds; ++r) {
    for (size_t v = 0; v < variants.size(); ++v) {
      std::fill(c.begin(), c.end(), 0.0f);
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i) variants[v].run(a.data(), b.data(), c.data());
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      gflops[v].push_back(flops / s * 1e-9);
      if (c[5] == 12345.0f) std::printf("!");  // keeps the results live
    }
  }
  std::printf("OpenBLAS core: %s; %d rounds x %d calls of %dx%dx%d, fp32, one thread\n", openblas_get_corename(),
              rounds, calls, n, n, n);
  std::printf("%-14s %10s %10s %10s\n", "variant", "median", "min", "max");
  for (size_t v = 0; v < variants.size(); ++v) {
    const auto& g = gflops[v];
    std::printf("%-14s %10.1f %10.1f %10.1f GFLOP/s\n", variants[v].name, median(g),
                *std::min_element(g.begin(), g.end()), *std::max_element(g.begin(), g.end()));
  }
  return 0;
}

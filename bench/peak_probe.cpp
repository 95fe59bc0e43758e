// bench_peak_probe: the machine's ceilings at 1..N threads, to read the
// training-step figures against, measured in the same run:
//   fma  - a pure register FMA loop (no memory traffic): what the cores give
//   gemm - the engine's GEMM (rotor::kernels::gemm) on a transformer shape,
//          T x 1024 x 256 (the ff1 product), T = 8192
//
//   bench_peak_probe [--threads 1,2] [--seconds 1.0]
// Prints one JSON object per (probe, threads) on stdout.
#include <immintrin.h>
#include <omp.h>

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/kernels/gemm.h"
#include "engine/parallel.h"

namespace {

using Clock = std::chrono::steady_clock;

// The widest FMA vector the build targets (-march=native): AVX-512's 16 lanes, else AVX2's 8.
#if defined(__AVX512F__)
using Vec = __m512;
constexpr int kLanes = 16;
inline Vec splat(float x) { return _mm512_set1_ps(x); }
inline Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
inline void store(float* p, Vec v) { _mm512_store_ps(p, v); }
#elif defined(__AVX2__) && defined(__FMA__)
using Vec = __m256;
constexpr int kLanes = 8;
inline Vec splat(float x) { return _mm256_set1_ps(x); }
inline Vec fmadd(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
inline void store(float* p, Vec v) { _mm256_store_ps(p, v); }
#else
#error "bench_peak_probe needs AVX2 with FMA or AVX-512 (build with ROTOR_NATIVE=ON on such a CPU)"
#endif

// 8 independent accumulator chains of vector FMAs per thread: enough to
// cover the FMA latency on Zen 3 and Zen 4. Returns FLOPs done.
double fma_loop(int64_t iters) {
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    Vec acc[8];
    for (int k = 0; k < 8; ++k) acc[k] = splat(1.0f + 1e-3f * k);
    const Vec a = splat(0.999999f), b = splat(1e-7f);
    for (int64_t i = 0; i < iters; ++i)
      for (int k = 0; k < 8; ++k) acc[k] = fmadd(acc[k], a, b);
    Vec s = acc[0];
    for (int k = 1; k < 8; ++k) s = add(s, acc[k]);
    alignas(64) float lanes[kLanes];
    store(lanes, s);
    volatile float sink = lanes[0];
    (void)sink;
    total += static_cast<double>(iters) * 8 * kLanes * 2;
  }
  return total;
}

// Median GFLOP/s over rounds of about `seconds` / 5 each.
template <class F>
double measure(F&& run_once, double seconds) {
  std::vector<double> rates;
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  while (rates.size() < 3 || (rates.size() < 5 && elapsed() < seconds)) {
    const auto t0 = Clock::now();
    const double flops = run_once();
    rates.push_back(flops / std::chrono::duration<double>(Clock::now() - t0).count() * 1e-9);
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> threads = {1, 2};
  double seconds = 1.0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc) {
      threads.clear();
      std::string list = argv[++i];
      for (size_t p = 0; p < list.size();) {
        const size_t q = std::min(list.find(',', p), list.size());
        threads.push_back(std::atoi(list.substr(p, q - p).c_str()));
        p = q + 1;
      }
    } else if (a == "--seconds" && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: bench_peak_probe [--threads 1,2] [--seconds 1.0]\n");
      return 2;
    }
  }
  const int64_t T = 8192, N = 1024, K = 256;
  std::vector<float> A(T * K, 0.5f), B(N * K, 0.25f), C(T * N);
  for (int n : threads) {
    rotor::set_num_threads(n);
    const double fma = measure([] { return fma_loop(20'000'000); }, seconds);
    const double gemm = measure(
        [&] {
          rotor::kernels::gemm<float>(false, true, T, N, K, 1.0f, A.data(), B.data(), 0.0f, C.data());
          return 2.0 * T * N * K;
        },
        seconds);
    std::printf("{\"probe\": \"fma\", \"threads\": %d, \"gflops\": %.2f}\n", n, fma);
    std::printf(
        "{\"probe\": \"gemm\", \"shape\": \"8192x1024x256 NT\", \"blas_core\": \"%s\", \"threads\": %d, "
        "\"gflops\": %.2f}\n",
        openblas_get_corename(), n, gemm);
    std::fflush(stdout);
  }
  return 0;
}

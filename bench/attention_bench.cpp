// bench_attention: the fused attention op against the composed engine ops
// (matmul, + bias, masked softmax, dropout, matmul), forward + backward, fp32,
// with a T5/ALiBi-style bias table and attention dropout (default 0.1); the
// path fused_bf16 is the fused op under Precision::bf16 (bf16 tile products).
//   bench_attention --n 2048 [--b 1 --h 4 --dh 64 --reps 7 --dropout 0.1] [--paths fused,fused_bf16,composed]
// Paths alternate within each repetition (interleaved); prints the median
// seconds of each and the process's peak RSS (run one path per process to
// attribute the peak to it).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/ops.h"
#include "engine/parallel.h"
#include "engine/precision.h"
#include "engine/random.h"
#include "tests/engine/attention_reference.h"

using namespace rotor;

namespace {

Tensor random_tensor(const Shape& shape, uint64_t seed) {
  Tensor t = Tensor::empty(shape, DType::F32);
  const RandomKey key{seed, stream_id("bench-attention"), 0};
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(key.normal(static_cast<uint64_t>(i)));
  return t;
}

// One forward + backward; returns seconds.
double step(bool fused, Precision precision, const Shape& shape, int64_t N, double dropout) {
  const PrecisionScope scope(precision);
  Var q(random_tensor(shape, 1), true), k(random_tensor(shape, 2), true), v(random_tensor(shape, 3), true);
  Var bias(random_tensor({shape[1], 2 * N - 1}, 4), true);
  Tensor r = random_tensor(shape, 5);
  AttentionOptions opt;
  opt.scale = 0.125;
  opt.bias = bias;
  opt.dropout = dropout;
  opt.dropout_key = RandomKey{1, stream_id("dropout"), 0};
  const auto t0 = std::chrono::steady_clock::now();
  const Var out = fused ? attention(q, k, v, opt) : test::composed_attention(q, k, v, opt);
  backward(sum_all(out * Var(r)));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Whether the comma-separated list names `path`.
bool has_path(const std::string& paths, const std::string& path) {
  return ("," + paths + ",").find("," + path + ",") != std::string::npos;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int64_t B = 1, H = 4, N = 512, dh = 64;
  int reps = 7;
  double dropout = 0.1;
  std::string paths = "fused,composed";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--n")
      N = std::atoll(value);
    else if (flag == "--b")
      B = std::atoll(value);
    else if (flag == "--h")
      H = std::atoll(value);
    else if (flag == "--dh")
      dh = std::atoll(value);
    else if (flag == "--reps")
      reps = std::atoi(value);
    else if (flag == "--paths")
      paths = value;
    else if (flag == "--dropout")
      dropout = std::atof(value);
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  const bool run_fused = has_path(paths, "fused"), run_bf16 = has_path(paths, "fused_bf16");
  const bool run_composed = has_path(paths, "composed");
  const Shape shape{B, H, N, dh};
  std::vector<double> fused, bf16, composed;
  for (int r = 0; r < reps; ++r) {
    if (run_fused) fused.push_back(step(true, Precision::fp32, shape, N, dropout));
    if (run_bf16) bf16.push_back(step(true, Precision::bf16, shape, N, dropout));
    if (run_composed) composed.push_back(step(false, Precision::fp32, shape, N, dropout));
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("B=%lld H=%lld N=%lld dh=%lld threads=%d reps=%d (forward+backward, fp32, bias, dropout %g)\n",
              static_cast<long long>(B), static_cast<long long>(H), static_cast<long long>(N),
              static_cast<long long>(dh), num_threads(), reps, dropout);
  if (run_fused) std::printf("fused    median %.4f s\n", median(fused));
  if (run_bf16) std::printf("fused_bf16 median %.4f s\n", median(bf16));
  if (run_fused && run_bf16) std::printf("fused / fused_bf16 = %.2f\n", median(fused) / median(bf16));
  if (run_composed) std::printf("composed median %.4f s\n", median(composed));
  if (run_fused && run_composed) std::printf("composed / fused = %.2f\n", median(composed) / median(fused));
  std::printf("peak RSS %.1f MiB\n", usage.ru_maxrss / 1024.0);
  return 0;
}

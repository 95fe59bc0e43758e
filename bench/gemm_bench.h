#pragma once
// bench_gemm's pieces (see gemm_bench.cpp): the shapes measured, the options,
// what one run measured, and the report printed from it.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#ifndef ROTOR_BENCH_SOURCE_DIR
#define ROTOR_BENCH_SOURCE_DIR "bench"
#endif

namespace rotor::bench {

using GemmFn =
    std::function<void(bool, bool, int64_t, int64_t, int64_t, float, const float*, const float*, float, float*)>;

struct Shape {
  std::string name, what;
  bool ta, tb;
  int64_t M, N, K;
  float beta;    // as the engine calls it: forward 0, backward accumulates (1)
  bool in_step;  // counted in the "training step" aggregate
  double flops() const { return 2.0 * double(M) * double(N) * double(K); }
  std::string op() const { return std::string(ta ? "T" : "N") + (tb ? "T" : "N"); }
};

inline std::vector<Shape> shapes_for(int64_t T) {
  return {
      {"fwd 256>768", "x[T,256]·W[768,256]^T", false, true, T, 768, 256, 0.f, true},
      {"fwd 256>1024", "x[T,256]·W[1024,256]^T", false, true, T, 1024, 256, 0.f, true},
      {"fwd 1024>256", "x[T,1024]·W[256,1024]^T", false, true, T, 256, 1024, 0.f, true},
      {"dX 768>256", "dY[T,768]·W[768,256]", false, false, T, 256, 768, 1.f, true},
      {"dX 1024>256", "dY[T,1024]·W[1024,256]", false, false, T, 256, 1024, 1.f, true},
      {"dX 256>1024", "dY[T,256]·W[256,1024]", false, false, T, 1024, 256, 1.f, true},
      {"dW 768x256", "dY^T[768,T]·X[T,256]", true, false, 768, 256, T, 1.f, true},
      {"dW 1024x256", "dY^T[1024,T]·X[T,256]", true, false, 1024, 256, T, 1.f, true},
      {"dW 256x1024", "dY^T[256,T]·X[T,1024]", true, false, 256, 1024, T, 1.f, true},
      // Not in the step total: TT is used by the engine only in batched attention
      // backward (one shape here covers the fourth transpose case) ...
      {"TT 768>256", "A^T·B^T, A[768,T] B[256,768]", true, true, T, 256, 768, 0.f, false},
      // M, N <= 128: the engine's single-tile branch, run outside any OpenMP
      // region (e.g. a small dW, or gemm_batched with a shared output).
      {"1tile 64x64", "dY^T[64,T]·X[T,64]", true, false, 64, 64, T, 1.f, false},
  };
}

struct PathDef {
  std::string key, label, desc;
  GemmFn fn;  // empty for torch
};

struct Config {
  int path;  // index into paths
  int threads;
};

struct Options {
  std::vector<int64_t> tokens = {2048, 8192};
  std::vector<int> threads = {1, 2};
  std::vector<std::string> paths = {"a", "b", "c", "e", "e2", "et", "bf"};
  int reps = 5;
  double budget_s = 170;  // stop adding rounds (after 3) when the run would exceed this; 0: no limit
  int inner = 0;          // calls per timed sample; 0: about 2 GFLOP per sample (see inner_for)
  bool with_torch = false;
  std::string python = "/usr/bin/python3";
  std::string torch_script = std::string(ROTOR_BENCH_SOURCE_DIR) + "/torch_matmul.py";
  std::string json;
};

// Calls per timed sample: enough for ~2 GFLOP (1 call for T=8192's shapes, 2-3
// for T=2048's, more for the small single-tile shape).
inline int inner_for(const Options& o, const Shape& s) {
  if (o.inner > 0) return o.inner;
  return int(std::max<long long>(1, std::llround(2e9 / s.flops())));
}

// The command line; exits (2) on a bad argument, (0) after --help.
Options parse_options(int argc, char** argv);

// ---------------------------------------------------------------------------
// Start-up check: does OpenBLAS (OpenMP build) stay single-threaded when called
// from inside an active OpenMP region, and is such a call bit-identical to a
// 1-thread call outside?
struct RegionCheck {
  bool in_parallel = false;
  long nested_launches = -1;      // GOMP_parallel calls made from inside the region
  long outside_2t_launches = -1;  // ... made by one 2-thread call outside a region
  bool inside_equals_1t = false;  // both threads' in-region results == 1-thread result
  bool outside_2t_equals_1t = false;
};

// ---------------------------------------------------------------------------
struct Cell {  // one (T, shape, config)
  std::vector<double> sec;
  double rel_err = NAN;
  uint64_t hash = 0;
  bool have_hash = false;
};

// Everything one run measured, for the report.
struct GemmBenchRun {
  Options opt;
  std::vector<PathDef> paths;   // torch, when it runs, last
  std::vector<Config> configs;  // every (path, threads)
  int torch_path = 0;           // index of torch in paths; paths.size() without torch
  bool use_torch = false;
  std::string torch_note;  // why torch was skipped, or what went wrong after it started
  std::string torch_info;  // the torch child's hello line (JSON)
  RegionCheck region;
  std::string date, host, load_start, load_end;
  std::vector<std::vector<Shape>> shapes_by_T;
  std::vector<std::vector<std::vector<Cell>>> results;  // [T index][shape][config]
  std::vector<int> rounds_done;
  double wall_s = 0;

  int config_index(int path, int threads) const;
  std::string threads_label() const;  // "1t/2t"
};

double median(std::vector<double> v);

// The tables: per T, GFLOP/s per shape and path, the step aggregate, ratios to torch.
void print_tables(const GemmBenchRun& run);
// Correctness against (a) at 1 thread, bit-identity across thread counts, notes.
void print_summary(const GemmBenchRun& run);
// Every sample, median, error and hash as JSON; false if the file cannot be written.
bool write_json(const GemmBenchRun& run);

}  // namespace rotor::bench

// bench_gemm: fp32 GEMM throughput on rotor's transformer shapes (d_model 256,
// ff 1024, qkv 768), forward and backward, for several GEMM paths, each with 1
// and 2 threads, measured round-robin in one run; optionally torch.matmul in
// the same run (--with-torch). See bench/README.md.
//
// Paths
//   a  rotor::kernels::gemm (engine): fixed 128-row/col tiles over OpenMP, each
//      tile one single-threaded cblas_sgemm (OpenBLAS runs single-threaded inside
//      an active OpenMP region; verified at start-up; a lone tile outside the
//      region is pinned to one thread). Deterministic for any thread count.
//   b  one whole Eigen product, Eigen's OpenMP threading (Eigen::setNbThreads).
//   c  one whole cblas_sgemm, OpenBLAS's own threading (openblas_set_num_threads).
//   e  Eigen compiled with EIGEN_USE_BLAS: the former Eigen-tiled engine plus that macro.
//   e2 Eigen compiled with EIGEN_USE_BLAS, one whole product (OpenBLAS threads).
//   et the engine's former Eigen-tiled gemm.cpp, frozen here for comparison.
//   bf rotor::kernels::gemm_bf16: bf16 inputs, fp32 sums (AVX-512 BF16 kernel where
//      the CPU has it, else the portable path); same tiles as (a). Its error
//      against (a) is bf16's (~1e-2 relative), not a fault.
//   bfp the bf16 portable path: inputs rounded to bf16 copies, then (a).
//   torch  torch.matmul via bench/torch_matmul.py --serve (a /usr/bin/python3
//      child process), interleaved shape by shape with the C++ paths.
//
// Files: gemm_bench.h (shapes, options, a run's results), gemm_bench_options.cpp,
// torch_client.h, gemm_bench_report.cpp (tables and JSON), this file (the paths,
// the start-up check and the measurement).
#include <cblas.h>
#include <dlfcn.h>
#include <omp.h>
#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/gemm_bench.h"
#include "bench/gemm_paths.h"
#include "bench/torch_client.h"
#include "engine/fnv1a.h"
#include "engine/kernels/gemm.h"
#include "engine/kernels/gemm_bf16.h"
#include "engine/parallel.h"

// ---------------------------------------------------------------------------
// GOMP_parallel interposer: counts OpenMP regions launched while already inside
// an active region. libopenblas (OpenMP build) starts its threads through
// GOMP_parallel; a call from inside our tile region would show up here.
extern "C" {
static std::atomic<long> g_gomp_total{0}, g_gomp_nested{0};
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) {
  using Real = void (*)(void (*)(void*), void*, unsigned, unsigned);
  static Real real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "GOMP_parallel"));
  if (!real) {
    std::fprintf(stderr, "bench_gemm: cannot find libgomp's GOMP_parallel\n");
    std::abort();
  }
  g_gomp_total.fetch_add(1, std::memory_order_relaxed);
  if (omp_in_parallel()) g_gomp_nested.fetch_add(1, std::memory_order_relaxed);
  real(fn, data, num_threads, flags);
}
}

using namespace rotor::bench;

namespace {

using Clock = std::chrono::steady_clock;

std::string loadavg() {
  std::string s;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    char buf[128] = {0};
    if (std::fgets(buf, sizeof buf, f)) s = buf;
    std::fclose(f);
  }
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// ---------------------------------------------------------------------------
// The GEMMs under test that are not in a separate library.

void openblas_whole(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, const float* B,
                    float beta, float* C) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, int(M), int(N), int(K),
              alpha, A, int(ta ? M : K), B, int(tb ? K : N), beta, C, int(N));
}

void rotor_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float* A, const float* B,
                float beta, float* C) {
  rotor::kernels::gemm<float>(ta, tb, M, N, K, alpha, A, B, beta, C);
}

// Every library's thread knob, set together before each measurement. Order
// matters: openblas_set_num_threads (OpenMP build) also calls omp_set_num_threads.
void set_threads(int n) {
  openblas_set_num_threads(n);
  omp_set_num_threads(n);
  rotor::set_num_threads(n);
  rotor::bench::eigen_omp_set_threads(n);
}

struct AlignedBuf {
  float* p = nullptr;
  size_t n = 0;
  explicit AlignedBuf(size_t count) : n(count) {
    p = static_cast<float*>(std::aligned_alloc(64, ((count * sizeof(float) + 63) / 64) * 64));
    if (!p) std::abort();
  }
  ~AlignedBuf() { std::free(p); }
  AlignedBuf(const AlignedBuf&) = delete;
  AlignedBuf& operator=(const AlignedBuf&) = delete;
};

void fill_uniform(float* p, size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (size_t i = 0; i < n; ++i) p[i] = u(g);
}

double max_rel_err(const float* c, const float* ref, size_t n) {
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) {
    num = std::max(num, std::fabs(double(c[i]) - double(ref[i])));
    den = std::max(den, std::fabs(double(ref[i])));
  }
  return den > 0 ? num / den : num;
}

RegionCheck check_openblas_in_region() {
  RegionCheck r;
  const int64_t M = 1024, N = 768, K = 512;
  AlignedBuf A(M * K), B(N * K), c1(M * N), c2(M * N), ct0(M * N), ct1(M * N);
  fill_uniform(A.p, A.n, 11);
  fill_uniform(B.p, B.n, 12);
  set_threads(1);
  openblas_whole(false, true, M, N, K, 1.f, A.p, B.p, 0.f, c1.p);
  set_threads(2);
  long t0 = g_gomp_total.load();
  openblas_whole(false, true, M, N, K, 1.f, A.p, B.p, 0.f, c2.p);
  r.outside_2t_launches = g_gomp_total.load() - t0;
  r.outside_2t_equals_1t = std::memcmp(c1.p, c2.p, M * N * sizeof(float)) == 0;
  const long n0 = g_gomp_nested.load();
  int inpar = 1;
#pragma omp parallel num_threads(2)
  {
    if (!omp_in_parallel()) {
#pragma omp atomic write
      inpar = 0;
    }
    float* dst = omp_get_thread_num() == 0 ? ct0.p : ct1.p;
    openblas_whole(false, true, M, N, K, 1.f, A.p, B.p, 0.f, dst);
  }
  r.nested_launches = g_gomp_nested.load() - n0;
  r.in_parallel = inpar && omp_get_max_threads() >= 2;
  r.inside_equals_1t =
      std::memcmp(c1.p, ct0.p, M * N * sizeof(float)) == 0 && std::memcmp(c1.p, ct1.p, M * N * sizeof(float)) == 0;
  return r;
}

// ---------------------------------------------------------------------------
// Choosing the paths, starting torch, the header.

// The paths named by --paths, (a) always included as the correctness
// reference; false after naming an unknown one.
bool select_paths(GemmBenchRun& run) {
  std::vector<PathDef> all = {
      {"a", "rotor", "rotor::kernels::gemm: 128-row/col tiles over OpenMP, single-threaded cblas_sgemm per tile",
       rotor_gemm},
      {"b", "eigen-omp", "one Eigen product, Eigen's OpenMP threading", eigen_omp_gemm},
      {"c", "openblas", "one cblas_sgemm, OpenBLAS threading", openblas_whole},
      {"e", "tile+eigblas", "rotor's tiles, Eigen with EIGEN_USE_BLAS (former engine gemm.cpp + macro)",
       eigen_blas_tiled_gemm},
      {"e2", "eigblas-whole", "one Eigen product with EIGEN_USE_BLAS, OpenBLAS threading", eigen_blas_whole_gemm},
      {"et", "eigen-tiled", "rotor's tiles, Eigen kernels: the former engine gemm.cpp (reference copy)",
       rotor::bench::eigen_tiled_gemm},
      {"bf", "rotor-bf16",
       rotor::kernels::cpu_has_bf16_dot() ? "rotor::kernels::gemm_bf16: rotor's tiles, AVX-512 BF16 micro-kernel"
                                          : "rotor::kernels::gemm_bf16: no AVX-512 BF16 here, the portable path",
       rotor::kernels::gemm_bf16},
      {"bfp", "bf16-portable", "gemm_bf16_rounded_fp32: inputs rounded to bf16 copies, then (a)",
       rotor::kernels::gemm_bf16_rounded_fp32},
  };
  for (const auto& k : run.opt.paths) {
    auto it = std::find_if(all.begin(), all.end(), [&](const PathDef& p) { return p.key == k; });
    if (it == all.end()) {
      std::fprintf(stderr, "unknown path %s\n", k.c_str());
      return false;
    }
    run.paths.push_back(*it);
  }
  if (std::find_if(run.paths.begin(), run.paths.end(), [](const PathDef& p) { return p.key == "a"; }) ==
      run.paths.end())
    run.paths.insert(run.paths.begin(), all[0]);  // (a) is the correctness reference
  return true;
}

void start_torch(GemmBenchRun& run, TorchClient& torch) {
  const Options& opt = run.opt;
  if (opt.with_torch) {
    if (!torch.start(opt.python, opt.torch_script)) run.torch_note = torch.note();
  }
  run.use_torch = torch.ok();
  run.torch_info = torch.info();
  run.torch_path = int(run.paths.size());
  if (run.use_torch) run.paths.push_back({"torch", "torch", "torch.matmul (python child, " + opt.python + ")", {}});
  for (int p = 0; p < int(run.paths.size()); ++p)
    for (int t : opt.threads) run.configs.push_back({p, t});
}

void print_header(GemmBenchRun& run) {
  utsname un{};
  uname(&un);
  char date[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
  run.date = date;
  run.host = un.nodename;
  run.load_start = loadavg();
  std::printf("bench_gemm  %s  host %s %s  online cpus %ld  loadavg at start: %s\n", date, un.nodename, un.machine,
              sysconf(_SC_NPROCESSORS_ONLN), run.load_start.c_str());
  std::printf("OpenBLAS: %s (core %s)\n", openblas_get_config(), openblas_get_corename());
  if (run.opt.with_torch)
    std::printf("torch: %s\n", run.use_torch ? run.torch_info.c_str() : ("skipped: " + run.torch_note).c_str());
  for (const auto& p : run.paths) std::printf("  %-14s %s\n", p.label.c_str(), p.desc.c_str());
}

void print_region_check(const RegionCheck& rc) {
  std::printf(
      "OpenBLAS inside a 2-thread OpenMP region: omp_in_parallel=%d, nested OpenMP launches by OpenBLAS=%ld "
      "(a 2-thread call outside a region launched %ld) -> %s; in-region result bit-identical to a 1-thread call: %s "
      "(2-thread call outside: %s)\n",
      int(rc.in_parallel), rc.nested_launches, rc.outside_2t_launches,
      rc.nested_launches == 0 ? "single-threaded" : "MULTI-THREADED", rc.inside_equals_1t ? "yes" : "NO",
      rc.outside_2t_equals_1t ? "identical" : "differs");
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------
// Measuring: round 0 warms up and checks, rounds 1.. are timed.

// One shape's operands; C0 is the initial C that every call starts from.
struct ShapeBuffers {
  std::unique_ptr<AlignedBuf> A, B, C0, C, ref;
};

std::vector<ShapeBuffers> make_buffers(const std::vector<Shape>& shapes) {
  std::vector<ShapeBuffers> bufs(shapes.size());
  for (size_t s = 0; s < shapes.size(); ++s) {
    const auto& sh = shapes[s];
    bufs[s].A = std::make_unique<AlignedBuf>(size_t(sh.M * sh.K));
    bufs[s].B = std::make_unique<AlignedBuf>(size_t(sh.K * sh.N));
    bufs[s].C0 = std::make_unique<AlignedBuf>(size_t(sh.M * sh.N));
    bufs[s].C = std::make_unique<AlignedBuf>(size_t(sh.M * sh.N));
    bufs[s].ref = std::make_unique<AlignedBuf>(size_t(sh.M * sh.N));
    fill_uniform(bufs[s].A->p, bufs[s].A->n, 100 + s);
    fill_uniform(bufs[s].B->p, bufs[s].B->n, 200 + s);
    fill_uniform(bufs[s].C0->p, bufs[s].C0->n, 300 + s);
  }
  return bufs;
}

// Shape `s` of one round: every config once, in an order rotated by (round + s).
void measure_shape(const GemmBenchRun& run, TorchClient& torch, const Shape& sh, ShapeBuffers& b,
                   std::vector<Cell>& cells, int round, size_t s) {
  const auto& configs = run.configs;
  const size_t nc = sh.M * sh.N;
  const int inner = inner_for(run.opt, sh);
  if (round == 0) {  // reference: (a) with 1 thread
    set_threads(1);
    std::memcpy(b.ref->p, b.C0->p, nc * sizeof(float));
    rotor_gemm(sh.ta, sh.tb, sh.M, sh.N, sh.K, 1.f, b.A->p, b.B->p, sh.beta, b.ref->p);
  }
  for (size_t j = 0; j < configs.size(); ++j) {
    const size_t ci = (j + size_t(round) + s) % configs.size();
    const Config& cf = configs[ci];
    const PathDef& pd = run.paths[cf.path];
    Cell& cell = cells[ci];
    if (cf.path == run.torch_path) {
      if (round == 0) {
        torch.time(sh, cf.threads, 1, 1);
      } else {
        const double sec = torch.time(sh, cf.threads, inner, 0);
        if (!std::isnan(sec)) cell.sec.push_back(sec);
      }
      continue;
    }
    set_threads(cf.threads);
    if (round == 0) {
      std::memcpy(b.C->p, b.C0->p, nc * sizeof(float));
      pd.fn(sh.ta, sh.tb, sh.M, sh.N, sh.K, 1.f, b.A->p, b.B->p, sh.beta, b.C->p);
      cell.rel_err = max_rel_err(b.C->p, b.ref->p, nc);
      cell.hash = rotor::fnv1a(b.C->p, nc * sizeof(float));
      cell.have_hash = true;
      continue;
    }
    const auto t0 = Clock::now();
    for (int k = 0; k < inner; ++k) pd.fn(sh.ta, sh.tb, sh.M, sh.N, sh.K, 1.f, b.A->p, b.B->p, sh.beta, b.C->p);
    cell.sec.push_back(seconds_since(t0) / inner);
  }
}

// Every round for token count `ti`, as many as --reps and --budget-s allow.
void measure_tokens(GemmBenchRun& run, size_t ti, TorchClient& torch, Clock::time_point wall0) {
  const Options& opt = run.opt;
  const int64_t T = opt.tokens[ti];
  const auto shapes = shapes_for(T);
  run.shapes_by_T.push_back(shapes);
  auto& res = run.results[ti];
  res.assign(shapes.size(), std::vector<Cell>(run.configs.size()));
  const auto t_start = Clock::now();
  std::vector<ShapeBuffers> bufs = make_buffers(shapes);
  double warm_s = 0;
  // Time budget: what is left of --budget-s, shared by the token counts still to run.
  const double budget_T = (opt.budget_s - seconds_since(wall0)) / double(opt.tokens.size() - ti);
  for (int round = 0; round <= opt.reps; ++round) {  // round 0: warm-up + checks
    for (size_t s = 0; s < shapes.size(); ++s) measure_shape(run, torch, shapes[s], bufs[s], res[s], round, s);
    const double el = seconds_since(t_start);
    std::fprintf(stderr, "  T=%lld round %d/%d done (%.1f s)\n", (long long)T, round, opt.reps, el);
    if (round == 0) warm_s = el;
    run.rounds_done[ti] = round;
    // Keep at least 3 timed rounds; add one more only if it should fit.
    if (opt.budget_s > 0 && round >= 3 && round < opt.reps && el + (el - warm_s) / round > budget_T) {
      std::fprintf(stderr, "  T=%lld: stopping after %d rounds (--budget-s %.0f)\n", (long long)T, round, opt.budget_s);
      break;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  const auto wall0 = Clock::now();
  GemmBenchRun run;
  run.opt = parse_options(argc, argv);
  if (!select_paths(run)) return 2;
  TorchClient torch;
  start_torch(run, torch);
  print_header(run);
  run.region = check_openblas_in_region();
  print_region_check(run.region);

  run.results.resize(run.opt.tokens.size());
  run.rounds_done.assign(run.opt.tokens.size(), 0);
  for (size_t ti = 0; ti < run.opt.tokens.size(); ++ti) measure_tokens(run, ti, torch, wall0);

  print_tables(run);
  if (run.use_torch) run.torch_note = torch.note();  // a failure after start-up
  run.load_end = loadavg();
  run.wall_s = seconds_since(wall0);
  print_summary(run);
  if (!run.opt.json.empty() && !write_json(run)) return 1;
  return 0;
}

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
//   torch  torch.matmul via bench/torch_matmul.py --serve (a /usr/bin/python3
//      child process), interleaved shape by shape with the C++ paths.
#include <cblas.h>
#include <dlfcn.h>
#include <omp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
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
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/gemm_paths.h"
#include "engine/fnv1a.h"
#include "engine/kernels/gemm.h"
#include "engine/parallel.h"

#ifndef ROTOR_BENCH_SOURCE_DIR
#define ROTOR_BENCH_SOURCE_DIR "bench"
#endif

extern char** environ;

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

namespace {

using Clock = std::chrono::steady_clock;
using rotor::bench::eigen_blas_tiled_gemm;
using rotor::bench::eigen_blas_whole_gemm;
using rotor::bench::eigen_omp_gemm;
using GemmFn =
    std::function<void(bool, bool, int64_t, int64_t, int64_t, float, const float*, const float*, float, float*)>;

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

// ---------------------------------------------------------------------------
struct Shape {
  std::string name, what;
  bool ta, tb;
  int64_t M, N, K;
  float beta;    // as the engine calls it: forward 0, backward accumulates (1)
  bool in_step;  // counted in the "training step" aggregate
  double flops() const { return 2.0 * double(M) * double(N) * double(K); }
  std::string op() const { return std::string(ta ? "T" : "N") + (tb ? "T" : "N"); }
};

std::vector<Shape> shapes_for(int64_t T) {
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

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// ---------------------------------------------------------------------------
// torch.matmul through a persistent /usr/bin/python3 child (torch_matmul.py --serve).
class TorchClient {
 public:
  bool start(const std::string& python, const std::string& script) {
    if (access(python.c_str(), X_OK) != 0) return fail(python + " not found");
    if (access(script.c_str(), R_OK) != 0) return fail(script + " not found");
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) return fail("pipe() failed");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from_child[1], 1);
    posix_spawn_file_actions_addclose(&fa, to_child[1]);
    posix_spawn_file_actions_addclose(&fa, from_child[0]);
    std::vector<std::string> args = {python, "-u", script, "--serve"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pid_, python.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(to_child[0]);
    close(from_child[1]);
    if (rc != 0) {
      close(to_child[1]);
      close(from_child[0]);
      pid_ = -1;
      return fail("cannot start " + python + ": " + std::strerror(rc));
    }
    in_ = fdopen(to_child[1], "w");
    out_ = fdopen(from_child[0], "r");
    const std::string hello = read_line();
    if (hello.find("\"ok\": true") == std::string::npos) {
      std::string err = hello.empty() ? "python child exited without a reply" : hello;
      stop();
      return fail("torch unavailable (" + err + ")");
    }
    info_ = hello;
    ok_ = true;
    return true;
  }

  // Mean seconds per call over `inner` calls (after `warmup` untimed calls); NAN on error.
  double time(const Shape& s, int threads, int inner, int warmup) {
    if (!ok_) return NAN;
    std::fprintf(in_,
                 "{\"ta\": %d, \"tb\": %d, \"M\": %lld, \"N\": %lld, \"K\": %lld, \"threads\": %d, \"inner\": %d, "
                 "\"warmup\": %d}\n",
                 int(s.ta), int(s.tb), (long long)s.M, (long long)s.N, (long long)s.K, threads, inner, warmup);
    std::fflush(in_);
    const std::string r = read_line();
    const auto k = r.find("\"sec\":");
    if (k == std::string::npos) {
      note_ = "torch child failed: " + (r.empty() ? std::string("no reply") : r);
      stop();
      return NAN;
    }
    return std::strtod(r.c_str() + k + 6, nullptr);
  }

  void stop() {
    if (in_) {
      std::fputs("quit\n", in_);
      std::fclose(in_);
      in_ = nullptr;
    }
    if (out_) {
      std::fclose(out_);
      out_ = nullptr;
    }
    if (pid_ > 0) {
      int st;
      waitpid(pid_, &st, 0);
      pid_ = -1;
    }
    ok_ = false;
  }
  ~TorchClient() { stop(); }

  bool ok() const { return ok_; }
  const std::string& note() const { return note_; }
  const std::string& info() const { return info_; }

 private:
  bool fail(const std::string& why) {
    note_ = why;
    ok_ = false;
    return false;
  }
  std::string read_line() {
    std::string s;
    if (!out_) return s;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, out_)) {
      s += buf;
      if (!s.empty() && s.back() == '\n') break;
    }
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }
  pid_t pid_ = -1;
  FILE* in_ = nullptr;
  FILE* out_ = nullptr;
  bool ok_ = false;
  std::string note_, info_;
};

// ---------------------------------------------------------------------------
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
  std::vector<std::string> paths = {"a", "b", "c", "e", "e2", "et"};
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
int inner_for(const Options& o, const Shape& s) {
  if (o.inner > 0) return o.inner;
  return int(std::max<long long>(1, std::llround(2e9 / s.flops())));
}

template <class T>
std::vector<T> parse_list(const std::string& s) {
  std::vector<T> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) {
      std::stringstream is(item);
      T x;
      is >> x;
      v.push_back(x);
    }
  return v;
}

void usage() {
  std::printf(
      "usage: bench_gemm [--tokens 2048,8192] [--threads 1,2] [--reps 5] [--inner N (default ~2 GFLOP/sample)]\n"
      "                  [--budget-s 170 (0: none)] [--paths a,b,c,e,e2,et] [--with-torch]\n"
      "                  [--python /usr/bin/python3]\n"
      "                  [--torch-script bench/torch_matmul.py] [--json FILE]\n"
      "  a  rotor::kernels::gemm (tiles of cblas_sgemm, deterministic)   b  Eigen, Eigen's OpenMP threads\n"
      "  c  cblas_sgemm, OpenBLAS threads                              e  tiles, Eigen with EIGEN_USE_BLAS\n"
      "  e2 one Eigen product with EIGEN_USE_BLAS                      et tiles, Eigen kernels (former engine)\n"
      "--reps is the most rounds per token count; with --budget-s, rounds after the 3rd are dropped when\n"
      "they would not fit (the table says how many ran).\n");
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "missing value for %s\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--tokens" || a == "-T")
      o.tokens = parse_list<int64_t>(next());
    else if (a == "--threads")
      o.threads = parse_list<int>(next());
    else if (a == "--paths")
      o.paths = parse_list<std::string>(next());
    else if (a == "--reps")
      o.reps = std::max(1, std::atoi(next().c_str()));
    else if (a == "--budget-s")
      o.budget_s = std::atof(next().c_str());
    else if (a == "--inner")
      o.inner = std::max(0, std::atoi(next().c_str()));
    else if (a == "--with-torch")
      o.with_torch = true;
    else if (a == "--python")
      o.python = next();
    else if (a == "--torch-script")
      o.torch_script = next();
    else if (a == "--json")
      o.json = next();
    else if (a == "-h" || a == "--help") {
      usage();
      std::exit(0);
    } else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      usage();
      std::exit(2);
    }
  }
  return o;
}

std::string json_str(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      r += '\\', r += c;
    else if (static_cast<unsigned char>(c) < 0x20)
      r += ' ';
    else
      r += c;
  }
  return r + "\"";
}

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
struct Cell {  // one (T, shape, config)
  std::vector<double> sec;
  double rel_err = NAN;
  uint64_t hash = 0;
  bool have_hash = false;
};

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  const Options opt = parse(argc, argv);
  const auto wall0 = Clock::now();

  std::vector<PathDef> all = {
      {"a", "rotor", "rotor::kernels::gemm: 128-row/col tiles over OpenMP, single-threaded cblas_sgemm per tile",
       rotor_gemm},
      {"b", "eigen-omp", "one Eigen product, Eigen's OpenMP threading", eigen_omp_gemm},
      {"c", "openblas", "one cblas_sgemm, OpenBLAS threading", openblas_whole},
      {"e", "tile+eigblas", "rotor's tiles, Eigen with EIGEN_USE_BLAS (engine gemm.cpp + macro)",
       eigen_blas_tiled_gemm},
      {"e2", "eigblas-whole", "one Eigen product with EIGEN_USE_BLAS, OpenBLAS threading", eigen_blas_whole_gemm},
      {"et", "eigen-tiled", "rotor's tiles, Eigen kernels: engine gemm.cpp as of this bench (reference copy)",
       rotor::bench::eigen_tiled_gemm},
  };
  std::vector<PathDef> paths;
  for (const auto& k : opt.paths) {
    auto it = std::find_if(all.begin(), all.end(), [&](const PathDef& p) { return p.key == k; });
    if (it == all.end()) {
      std::fprintf(stderr, "unknown path %s\n", k.c_str());
      return 2;
    }
    paths.push_back(*it);
  }
  if (std::find_if(paths.begin(), paths.end(), [](const PathDef& p) { return p.key == "a"; }) == paths.end())
    paths.insert(paths.begin(), all[0]);  // (a) is the correctness reference

  TorchClient torch;
  std::string torch_note;
  if (opt.with_torch) {
    if (!torch.start(opt.python, opt.torch_script)) torch_note = torch.note();
  }
  const bool use_torch = torch.ok();
  const int torch_path = int(paths.size());
  if (use_torch) paths.push_back({"torch", "torch", "torch.matmul (python child, " + opt.python + ")", {}});

  std::vector<Config> configs;
  for (int p = 0; p < int(paths.size()); ++p)
    for (int t : opt.threads) configs.push_back({p, t});

  // Header.
  utsname un{};
  uname(&un);
  char date[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
  const std::string load_start = loadavg();
  std::printf("bench_gemm  %s  host %s %s  online cpus %ld  loadavg at start: %s\n", date, un.nodename, un.machine,
              sysconf(_SC_NPROCESSORS_ONLN), load_start.c_str());
  std::printf("OpenBLAS: %s (core %s)\n", openblas_get_config(), openblas_get_corename());
  if (opt.with_torch) std::printf("torch: %s\n", use_torch ? torch.info().c_str() : ("skipped: " + torch_note).c_str());
  for (const auto& p : paths) std::printf("  %-14s %s\n", p.label.c_str(), p.desc.c_str());

  const RegionCheck rc = check_openblas_in_region();
  std::printf(
      "OpenBLAS inside a 2-thread OpenMP region: omp_in_parallel=%d, nested OpenMP launches by OpenBLAS=%ld "
      "(a 2-thread call outside a region launched %ld) -> %s; in-region result bit-identical to a 1-thread call: %s "
      "(2-thread call outside: %s)\n",
      int(rc.in_parallel), rc.nested_launches, rc.outside_2t_launches,
      rc.nested_launches == 0 ? "single-threaded" : "MULTI-THREADED", rc.inside_equals_1t ? "yes" : "NO",
      rc.outside_2t_equals_1t ? "identical" : "differs");
  std::fflush(stdout);

  // results[T index][shape][config]
  std::vector<std::vector<std::vector<Cell>>> results(opt.tokens.size());
  std::vector<std::vector<Shape>> shapes_by_T;
  std::vector<int> rounds_done(opt.tokens.size(), 0);

  for (size_t ti = 0; ti < opt.tokens.size(); ++ti) {
    const int64_t T = opt.tokens[ti];
    const auto shapes = shapes_for(T);
    shapes_by_T.push_back(shapes);
    auto& res = results[ti];
    res.assign(shapes.size(), std::vector<Cell>(configs.size()));
    const auto t_start = Clock::now();
    // Buffers are made per shape; round r visits every shape, and for each shape
    // every config once, in an order rotated by (r + shape).
    struct Bufs {
      std::unique_ptr<AlignedBuf> A, B, C0, C, ref;
    };
    std::vector<Bufs> bufs(shapes.size());
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
    double warm_s = 0;
    // Time budget: what is left of --budget-s, shared by the token counts still to run.
    const double budget_T = (opt.budget_s - seconds_since(wall0)) / double(opt.tokens.size() - ti);
    for (int round = 0; round <= opt.reps; ++round) {  // round 0: warm-up + checks
      for (size_t s = 0; s < shapes.size(); ++s) {
        const auto& sh = shapes[s];
        auto& b = bufs[s];
        const size_t nc = sh.M * sh.N;
        const int inner = inner_for(opt, sh);
        if (round == 0) {  // reference: (a) with 1 thread
          set_threads(1);
          std::memcpy(b.ref->p, b.C0->p, nc * sizeof(float));
          rotor_gemm(sh.ta, sh.tb, sh.M, sh.N, sh.K, 1.f, b.A->p, b.B->p, sh.beta, b.ref->p);
        }
        for (size_t j = 0; j < configs.size(); ++j) {
          const size_t ci = (j + size_t(round) + s) % configs.size();
          const Config& cf = configs[ci];
          const PathDef& pd = paths[cf.path];
          Cell& cell = res[s][ci];
          if (cf.path == torch_path) {
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
      const double el = seconds_since(t_start);
      std::fprintf(stderr, "  T=%lld round %d/%d done (%.1f s)\n", (long long)T, round, opt.reps, el);
      if (round == 0) warm_s = el;
      rounds_done[ti] = round;
      // Keep at least 3 timed rounds; add one more only if it should fit.
      if (opt.budget_s > 0 && round >= 3 && round < opt.reps && el + (el - warm_s) / round > budget_T) {
        std::fprintf(stderr, "  T=%lld: stopping after %d rounds (--budget-s %.0f)\n", (long long)T, round,
                     opt.budget_s);
        break;
      }
    }
  }

  // ---------------------------------------------------------------------------
  // Report.
  const size_t nth = opt.threads.size();
  auto cfg_index = [&](int p, int t) -> int {
    for (size_t i = 0; i < configs.size(); ++i)
      if (configs[i].path == p && configs[i].threads == t) return int(i);
    return -1;
  };
  auto gflops = [](const Shape& s, double sec) { return s.flops() / sec * 1e-9; };

  std::string thr_label;
  for (size_t i = 0; i < nth; ++i) thr_label += (i ? "/" : "") + std::to_string(opt.threads[i]) + "t";

  for (size_t ti = 0; ti < opt.tokens.size(); ++ti) {
    const auto& shapes = shapes_by_T[ti];
    const auto& res = results[ti];
    const int nr = rounds_done[ti];
    std::printf("\n== T = %lld tokens: median GFLOP/s over %d interleaved rounds, %s ==\n", (long long)opt.tokens[ti],
                nr, thr_label.c_str());
    std::printf("%-13s %2s %5s %5s %5s", "shape", "op", "M", "N", "K");
    for (const auto& p : paths) std::printf(" %15s", p.label.c_str());
    std::printf("\n");
    // per (path, threads): totals for the step aggregate, per round
    std::vector<std::vector<double>> round_sum(configs.size(), std::vector<double>(nr, 0.0));
    std::vector<double> med_sum(configs.size(), 0.0);
    double step_flops = 0;
    for (size_t s = 0; s < shapes.size(); ++s) {
      const auto& sh = shapes[s];
      std::printf("%-13s %2s %5lld %5lld %5lld", sh.name.c_str(), sh.op().c_str(), (long long)sh.M, (long long)sh.N,
                  (long long)sh.K);
      if (sh.in_step) step_flops += sh.flops();
      for (int p = 0; p < int(paths.size()); ++p) {
        std::string cellstr;
        for (size_t t = 0; t < nth; ++t) {
          const int ci = cfg_index(p, opt.threads[t]);
          const auto& c = res[s][ci];
          const double med = median(c.sec);
          char buf[32];
          std::snprintf(buf, sizeof buf, "%s%.0f", t ? "/" : "", std::isnan(med) ? 0.0 : gflops(sh, med));
          cellstr += buf;
          if (sh.in_step) {
            med_sum[ci] += med;
            for (int r = 0; r < nr && r < int(c.sec.size()); ++r) round_sum[ci][r] += c.sec[r];
          }
        }
        std::printf(" %15s", cellstr.c_str());
      }
      std::printf("\n");
    }
    std::printf("%-31s", "step (9 linear GEMMs)");
    for (int p = 0; p < int(paths.size()); ++p) {
      std::string cellstr;
      for (size_t t = 0; t < nth; ++t) {
        const int ci = cfg_index(p, opt.threads[t]);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.0f", t ? "/" : "", step_flops / med_sum[ci] * 1e-9);
        cellstr += buf;
      }
      std::printf(" %15s", cellstr.c_str());
    }
    std::printf("\n%-31s", "  per-round range (min-max)");
    for (int p = 0; p < int(paths.size()); ++p) {
      std::string cellstr;
      for (size_t t = 0; t < nth; ++t) {
        const int ci = cfg_index(p, opt.threads[t]);
        double lo = 1e30, hi = 0;
        for (double x : round_sum[ci]) {
          if (x <= 0) continue;
          lo = std::min(lo, step_flops / x * 1e-9);
          hi = std::max(hi, step_flops / x * 1e-9);
        }
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.0f-%.0f", t ? " " : "", hi > 0 ? lo : 0.0, hi);
        cellstr += buf;
      }
      std::printf(" %15s", cellstr.c_str());
    }
    std::printf("\n");

    // Ratios against torch (each at its best thread count).
    if (use_torch) {
      std::printf("\nratio path/torch, T=%lld (each at its best thread count for the shape; >1 = faster than torch)\n",
                  (long long)opt.tokens[ti]);
      std::printf("%-13s", "shape");
      for (int p = 0; p < torch_path; ++p) std::printf(" %13s", paths[p].label.c_str());
      std::printf(" %13s\n", "torch GF/s");
      auto best = [&](size_t s, int p, int* best_t) {
        double bg = 0;
        for (size_t t = 0; t < nth; ++t) {
          const double med = median(res[s][cfg_index(p, opt.threads[t])].sec);
          if (!std::isnan(med) && gflops(shapes[s], med) > bg) {
            bg = gflops(shapes[s], med);
            *best_t = opt.threads[t];
          }
        }
        return bg;
      };
      for (size_t s = 0; s < shapes.size(); ++s) {
        std::printf("%-13s", shapes[s].name.c_str());
        int tt = 0;
        const double tg = best(s, torch_path, &tt);
        for (int p = 0; p < torch_path; ++p) {
          int bt = 0;
          const double g = best(s, p, &bt);
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.2f (%dt)", tg > 0 ? g / tg : 0.0, bt);
          std::printf(" %13s", buf);
        }
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f (%dt)", tg, tt);
        std::printf(" %13s\n", buf);
      }
      // Step aggregate at each path's best thread count.
      auto best_step = [&](int p, int* bt) {
        double bg = 0;
        for (size_t t = 0; t < nth; ++t) {
          const int ci = cfg_index(p, opt.threads[t]);
          const double g = step_flops / med_sum[ci] * 1e-9;
          if (g > bg) bg = g, *bt = opt.threads[t];
        }
        return bg;
      };
      int tt = 0;
      const double tg = best_step(torch_path, &tt);
      std::printf("%-13s", "step");
      for (int p = 0; p < torch_path; ++p) {
        int bt = 0;
        const double g = best_step(p, &bt);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.2f (%dt)", g / tg, bt);
        std::printf(" %13s", buf);
      }
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.0f (%dt)", tg, tt);
      std::printf(" %13s\n", buf);
    }
  }

  // Correctness and determinism.
  std::printf(
      "\ncorrectness vs (a) 1 thread: max over shapes and threads of max|C-ref|/max|ref|; "
      "bit-identical across %s (shapes identical / total):\n",
      thr_label.c_str());
  for (int p = 0; p < torch_path; ++p) {
    double err = 0;
    int same = 0, total = 0;
    for (size_t ti = 0; ti < opt.tokens.size(); ++ti)
      for (size_t s = 0; s < shapes_by_T[ti].size(); ++s) {
        bool all_same = true;
        uint64_t h0 = 0;
        for (size_t t = 0; t < nth; ++t) {
          const auto& c = results[ti][s][cfg_index(p, opt.threads[t])];
          err = std::max(err, c.rel_err);
          if (t == 0)
            h0 = c.hash;
          else if (c.hash != h0)
            all_same = false;
        }
        same += all_same;
        ++total;
      }
    std::printf("  %-14s max rel err %.2e   bit-identical %s: %d/%d%s\n", paths[p].label.c_str(), err,
                thr_label.c_str(), same, total, same == total ? "  (deterministic)" : "");
  }
  if (opt.with_torch && !use_torch) std::printf("\ntorch skipped: %s\n", torch_note.c_str());
  if (use_torch && !torch.note().empty()) std::printf("\ntorch note: %s\n", torch.note().c_str());
  const std::string load_end = loadavg();
  std::printf("\ntotal wall time %.1f s; loadavg at end: %s (other processes on this host skew every figure)\n",
              seconds_since(wall0), load_end.c_str());

  if (!opt.json.empty()) {
    FILE* f = std::fopen(opt.json.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", opt.json.c_str());
      return 1;
    }
    std::fprintf(f, "{\n  \"date\": %s,\n  \"host\": %s,\n  \"cpus_online\": %ld,\n", json_str(date).c_str(),
                 json_str(un.nodename).c_str(), sysconf(_SC_NPROCESSORS_ONLN));
    std::fprintf(f, "  \"loadavg_start\": %s,\n  \"loadavg_end\": %s,\n", json_str(load_start).c_str(),
                 json_str(load_end).c_str());
    std::fprintf(f, "  \"openblas\": {\"config\": %s, \"core\": %s},\n", json_str(openblas_get_config()).c_str(),
                 json_str(openblas_get_corename()).c_str());
    std::fprintf(
        f, "  \"torch\": %s,\n",
        use_torch ? torch.info().c_str() : ("{\"ok\": false, \"note\": " + json_str(torch_note) + "}").c_str());
    std::fprintf(f,
                 "  \"openblas_in_region\": {\"omp_in_parallel\": %s, \"nested_launches\": %ld, "
                 "\"outside_2t_launches\": %ld, \"inside_equals_1t\": %s, \"outside_2t_equals_1t\": %s},\n",
                 rc.in_parallel ? "true" : "false", rc.nested_launches, rc.outside_2t_launches,
                 rc.inside_equals_1t ? "true" : "false", rc.outside_2t_equals_1t ? "true" : "false");
    std::fprintf(f, "  \"rounds\": {");
    for (size_t ti = 0; ti < opt.tokens.size(); ++ti)
      std::fprintf(f, "%s\"%lld\": %d", ti ? ", " : "", (long long)opt.tokens[ti], rounds_done[ti]);
    std::fprintf(f, "},\n  \"paths\": {");
    for (size_t p = 0; p < paths.size(); ++p)
      std::fprintf(f, "%s%s: {\"label\": %s, \"desc\": %s}", p ? ", " : "", json_str(paths[p].key).c_str(),
                   json_str(paths[p].label).c_str(), json_str(paths[p].desc).c_str());
    std::fprintf(f, "},\n  \"results\": [\n");
    bool first = true;
    for (size_t ti = 0; ti < opt.tokens.size(); ++ti)
      for (size_t s = 0; s < shapes_by_T[ti].size(); ++s)
        for (size_t ci = 0; ci < configs.size(); ++ci) {
          const auto& sh = shapes_by_T[ti][s];
          const auto& c = results[ti][s][ci];
          const double med = median(c.sec);
          std::fprintf(f,
                       "%s    {\"T\": %lld, \"shape\": %s, \"op\": %s, \"M\": %lld, \"N\": %lld, \"K\": %lld, "
                       "\"beta\": %g, \"in_step\": %s, \"path\": %s, \"threads\": %d, \"calls_per_sample\": %d, "
                       "\"median_gflops\": %.3f, ",
                       first ? "" : ",\n", (long long)opt.tokens[ti], json_str(sh.name).c_str(),
                       json_str(sh.op()).c_str(), (long long)sh.M, (long long)sh.N, (long long)sh.K, sh.beta,
                       sh.in_step ? "true" : "false", json_str(paths[configs[ci].path].key).c_str(),
                       configs[ci].threads, inner_for(opt, sh), std::isnan(med) ? 0.0 : gflops(sh, med));
          if (!std::isnan(c.rel_err))
            std::fprintf(f, "\"max_rel_err_vs_a\": %.3e, \"hash\": \"%016llx\", ", c.rel_err,
                         (unsigned long long)c.hash);
          std::fprintf(f, "\"samples_s\": [");
          for (size_t k = 0; k < c.sec.size(); ++k) std::fprintf(f, "%s%.6g", k ? ", " : "", c.sec[k]);
          std::fprintf(f, "]}");
          first = false;
        }
    std::fprintf(f, "\n  ]\n}\n");
    std::fclose(f);
    std::printf("wrote %s\n", opt.json.c_str());
  }
  return 0;
}

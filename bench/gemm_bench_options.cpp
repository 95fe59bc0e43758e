// bench_gemm's command line.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "bench/gemm_bench.h"

namespace rotor::bench {
namespace {

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
      "                  [--budget-s 170 (0: none)] [--paths a,b,c,e,e2,et,bf(,bfp)] [--with-torch]\n"
      "                  [--python /usr/bin/python3]\n"
      "                  [--torch-script bench/torch_matmul.py] [--json FILE]\n"
      "  a  rotor::kernels::gemm (tiles of cblas_sgemm, deterministic)   b  Eigen, Eigen's OpenMP threads\n"
      "  c  cblas_sgemm, OpenBLAS threads                              e  tiles, Eigen with EIGEN_USE_BLAS\n"
      "  e2 one Eigen product with EIGEN_USE_BLAS                      et tiles, Eigen kernels (former engine)\n"
      "--reps is the most rounds per token count; with --budget-s, rounds after the 3rd are dropped when\n"
      "they would not fit (the table says how many ran).\n");
}

}  // namespace

Options parse_options(int argc, char** argv) {
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

}  // namespace rotor::bench

// bench_gemm's report: the tables per token count, the correctness summary and
// the JSON file, all from one GemmBenchRun.
#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/gemm_bench.h"

namespace rotor::bench {
namespace {

double gflops(const Shape& s, double sec) { return s.flops() / sec * 1e-9; }

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

// The step aggregate of one token count, per config: the sum of the in-step
// shapes' medians and, per round, of their samples.
struct StepSums {
  std::vector<double> median_sum;
  std::vector<std::vector<double>> round_sum;
  double flops = 0;
};

// One row per shape: GFLOP/s per path, "1t/2t"; adds the in-step shapes to the sums.
StepSums print_shape_rows(const GemmBenchRun& run, size_t ti) {
  const auto& shapes = run.shapes_by_T[ti];
  const auto& res = run.results[ti];
  const int nr = run.rounds_done[ti];
  const size_t nth = run.opt.threads.size();
  StepSums sums{std::vector<double>(run.configs.size(), 0.0),
                std::vector<std::vector<double>>(run.configs.size(), std::vector<double>(nr, 0.0)), 0.0};
  for (size_t s = 0; s < shapes.size(); ++s) {
    const auto& sh = shapes[s];
    std::printf("%-13s %2s %5lld %5lld %5lld", sh.name.c_str(), sh.op().c_str(), (long long)sh.M, (long long)sh.N,
                (long long)sh.K);
    if (sh.in_step) sums.flops += sh.flops();
    for (int p = 0; p < int(run.paths.size()); ++p) {
      std::string cellstr;
      for (size_t t = 0; t < nth; ++t) {
        const int ci = run.config_index(p, run.opt.threads[t]);
        const auto& c = res[s][ci];
        const double med = median(c.sec);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.0f", t ? "/" : "", std::isnan(med) ? 0.0 : gflops(sh, med));
        cellstr += buf;
        if (sh.in_step) {
          sums.median_sum[ci] += med;
          for (int r = 0; r < nr && r < int(c.sec.size()); ++r) sums.round_sum[ci][r] += c.sec[r];
        }
      }
      std::printf(" %15s", cellstr.c_str());
    }
    std::printf("\n");
  }
  return sums;
}

// The step row (medians) and the per-round range of the step figure.
void print_step_rows(const GemmBenchRun& run, const StepSums& sums) {
  const size_t nth = run.opt.threads.size();
  std::printf("%-31s", "step (9 linear GEMMs)");
  for (int p = 0; p < int(run.paths.size()); ++p) {
    std::string cellstr;
    for (size_t t = 0; t < nth; ++t) {
      const int ci = run.config_index(p, run.opt.threads[t]);
      char buf[32];
      std::snprintf(buf, sizeof buf, "%s%.0f", t ? "/" : "", sums.flops / sums.median_sum[ci] * 1e-9);
      cellstr += buf;
    }
    std::printf(" %15s", cellstr.c_str());
  }
  std::printf("\n%-31s", "  per-round range (min-max)");
  for (int p = 0; p < int(run.paths.size()); ++p) {
    std::string cellstr;
    for (size_t t = 0; t < nth; ++t) {
      const int ci = run.config_index(p, run.opt.threads[t]);
      double lo = 1e30, hi = 0;
      for (double x : sums.round_sum[ci]) {
        if (x <= 0) continue;
        lo = std::min(lo, sums.flops / x * 1e-9);
        hi = std::max(hi, sums.flops / x * 1e-9);
      }
      char buf[32];
      std::snprintf(buf, sizeof buf, "%s%.0f-%.0f", t ? " " : "", hi > 0 ? lo : 0.0, hi);
      cellstr += buf;
    }
    std::printf(" %15s", cellstr.c_str());
  }
  std::printf("\n");
}

// The best GFLOP/s of path `p` on shape `s` over the thread counts, and that count.
double best_gflops(const GemmBenchRun& run, size_t ti, size_t s, int p, int* best_t) {
  double bg = 0;
  for (size_t t = 0; t < run.opt.threads.size(); ++t) {
    const double med = median(run.results[ti][s][run.config_index(p, run.opt.threads[t])].sec);
    if (!std::isnan(med) && gflops(run.shapes_by_T[ti][s], med) > bg) {
      bg = gflops(run.shapes_by_T[ti][s], med);
      *best_t = run.opt.threads[t];
    }
  }
  return bg;
}

// The best step GFLOP/s of path `p` over the thread counts, and that count.
double best_step_gflops(const GemmBenchRun& run, const StepSums& sums, int p, int* bt) {
  double bg = 0;
  for (size_t t = 0; t < run.opt.threads.size(); ++t) {
    const int ci = run.config_index(p, run.opt.threads[t]);
    const double g = sums.flops / sums.median_sum[ci] * 1e-9;
    if (g > bg) bg = g, *bt = run.opt.threads[t];
  }
  return bg;
}

// Ratios against torch, each path at its best thread count.
void print_torch_ratios(const GemmBenchRun& run, size_t ti, const StepSums& sums) {
  const int torch_path = run.torch_path;
  std::printf("\nratio path/torch, T=%lld (each at its best thread count for the shape; >1 = faster than torch)\n",
              (long long)run.opt.tokens[ti]);
  std::printf("%-13s", "shape");
  for (int p = 0; p < torch_path; ++p) std::printf(" %13s", run.paths[p].label.c_str());
  std::printf(" %13s\n", "torch GF/s");
  for (size_t s = 0; s < run.shapes_by_T[ti].size(); ++s) {
    std::printf("%-13s", run.shapes_by_T[ti][s].name.c_str());
    int tt = 0;
    const double tg = best_gflops(run, ti, s, torch_path, &tt);
    for (int p = 0; p < torch_path; ++p) {
      int bt = 0;
      const double g = best_gflops(run, ti, s, p, &bt);
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f (%dt)", tg > 0 ? g / tg : 0.0, bt);
      std::printf(" %13s", buf);
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f (%dt)", tg, tt);
    std::printf(" %13s\n", buf);
  }
  // Step aggregate at each path's best thread count.
  int tt = 0;
  const double tg = best_step_gflops(run, sums, torch_path, &tt);
  std::printf("%-13s", "step");
  for (int p = 0; p < torch_path; ++p) {
    int bt = 0;
    const double g = best_step_gflops(run, sums, p, &bt);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f (%dt)", g / tg, bt);
    std::printf(" %13s", buf);
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f (%dt)", tg, tt);
  std::printf(" %13s\n", buf);
}

void write_json_header(FILE* f, const GemmBenchRun& run) {
  const RegionCheck& rc = run.region;
  std::fprintf(f, "{\n  \"date\": %s,\n  \"host\": %s,\n  \"cpus_online\": %ld,\n", json_str(run.date).c_str(),
               json_str(run.host).c_str(), sysconf(_SC_NPROCESSORS_ONLN));
  std::fprintf(f, "  \"loadavg_start\": %s,\n  \"loadavg_end\": %s,\n", json_str(run.load_start).c_str(),
               json_str(run.load_end).c_str());
  std::fprintf(f, "  \"openblas\": {\"config\": %s, \"core\": %s},\n", json_str(openblas_get_config()).c_str(),
               json_str(openblas_get_corename()).c_str());
  std::fprintf(
      f, "  \"torch\": %s,\n",
      run.use_torch ? run.torch_info.c_str() : ("{\"ok\": false, \"note\": " + json_str(run.torch_note) + "}").c_str());
  std::fprintf(f,
               "  \"openblas_in_region\": {\"omp_in_parallel\": %s, \"nested_launches\": %ld, "
               "\"outside_2t_launches\": %ld, \"inside_equals_1t\": %s, \"outside_2t_equals_1t\": %s},\n",
               rc.in_parallel ? "true" : "false", rc.nested_launches, rc.outside_2t_launches,
               rc.inside_equals_1t ? "true" : "false", rc.outside_2t_equals_1t ? "true" : "false");
  std::fprintf(f, "  \"rounds\": {");
  for (size_t ti = 0; ti < run.opt.tokens.size(); ++ti)
    std::fprintf(f, "%s\"%lld\": %d", ti ? ", " : "", (long long)run.opt.tokens[ti], run.rounds_done[ti]);
  std::fprintf(f, "},\n  \"paths\": {");
  for (size_t p = 0; p < run.paths.size(); ++p)
    std::fprintf(f, "%s%s: {\"label\": %s, \"desc\": %s}", p ? ", " : "", json_str(run.paths[p].key).c_str(),
                 json_str(run.paths[p].label).c_str(), json_str(run.paths[p].desc).c_str());
  std::fprintf(f, "},\n");
}

void write_json_results(FILE* f, const GemmBenchRun& run) {
  std::fprintf(f, "  \"results\": [\n");
  bool first = true;
  for (size_t ti = 0; ti < run.opt.tokens.size(); ++ti)
    for (size_t s = 0; s < run.shapes_by_T[ti].size(); ++s)
      for (size_t ci = 0; ci < run.configs.size(); ++ci) {
        const auto& sh = run.shapes_by_T[ti][s];
        const auto& c = run.results[ti][s][ci];
        const double med = median(c.sec);
        std::fprintf(f,
                     "%s    {\"T\": %lld, \"shape\": %s, \"op\": %s, \"M\": %lld, \"N\": %lld, \"K\": %lld, "
                     "\"beta\": %g, \"in_step\": %s, \"path\": %s, \"threads\": %d, \"calls_per_sample\": %d, "
                     "\"median_gflops\": %.3f, ",
                     first ? "" : ",\n", (long long)run.opt.tokens[ti], json_str(sh.name).c_str(),
                     json_str(sh.op()).c_str(), (long long)sh.M, (long long)sh.N, (long long)sh.K, sh.beta,
                     sh.in_step ? "true" : "false", json_str(run.paths[run.configs[ci].path].key).c_str(),
                     run.configs[ci].threads, inner_for(run.opt, sh), std::isnan(med) ? 0.0 : gflops(sh, med));
        if (!std::isnan(c.rel_err))
          std::fprintf(f, "\"max_rel_err_vs_a\": %.3e, \"hash\": \"%016llx\", ", c.rel_err, (unsigned long long)c.hash);
        std::fprintf(f, "\"samples_s\": [");
        for (size_t k = 0; k < c.sec.size(); ++k) std::fprintf(f, "%s%.6g", k ? ", " : "", c.sec[k]);
        std::fprintf(f, "]}");
        first = false;
      }
  std::fprintf(f, "\n  ]\n}\n");
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int GemmBenchRun::config_index(int path, int threads) const {
  for (size_t i = 0; i < configs.size(); ++i)
    if (configs[i].path == path && configs[i].threads == threads) return int(i);
  return -1;
}

std::string GemmBenchRun::threads_label() const {
  std::string label;
  for (size_t i = 0; i < opt.threads.size(); ++i) label += (i ? "/" : "") + std::to_string(opt.threads[i]) + "t";
  return label;
}

void print_tables(const GemmBenchRun& run) {
  for (size_t ti = 0; ti < run.opt.tokens.size(); ++ti) {
    std::printf("\n== T = %lld tokens: median GFLOP/s over %d interleaved rounds, %s ==\n",
                (long long)run.opt.tokens[ti], run.rounds_done[ti], run.threads_label().c_str());
    std::printf("%-13s %2s %5s %5s %5s", "shape", "op", "M", "N", "K");
    for (const auto& p : run.paths) std::printf(" %15s", p.label.c_str());
    std::printf("\n");
    const StepSums sums = print_shape_rows(run, ti);
    print_step_rows(run, sums);
    if (run.use_torch) print_torch_ratios(run, ti, sums);
  }
}

void print_summary(const GemmBenchRun& run) {
  const std::string thr_label = run.threads_label();
  std::printf(
      "\ncorrectness vs (a) 1 thread: max over shapes and threads of max|C-ref|/max|ref|; "
      "bit-identical across %s (shapes identical / total):\n",
      thr_label.c_str());
  for (int p = 0; p < run.torch_path; ++p) {
    double err = 0;
    int same = 0, total = 0;
    for (size_t ti = 0; ti < run.opt.tokens.size(); ++ti)
      for (size_t s = 0; s < run.shapes_by_T[ti].size(); ++s) {
        bool all_same = true;
        uint64_t h0 = 0;
        for (size_t t = 0; t < run.opt.threads.size(); ++t) {
          const auto& c = run.results[ti][s][run.config_index(p, run.opt.threads[t])];
          err = std::max(err, c.rel_err);
          if (t == 0)
            h0 = c.hash;
          else if (c.hash != h0)
            all_same = false;
        }
        same += all_same;
        ++total;
      }
    std::printf("  %-14s max rel err %.2e   bit-identical %s: %d/%d%s\n", run.paths[p].label.c_str(), err,
                thr_label.c_str(), same, total, same == total ? "  (deterministic)" : "");
  }
  if (run.opt.with_torch && !run.use_torch) std::printf("\ntorch skipped: %s\n", run.torch_note.c_str());
  if (run.use_torch && !run.torch_note.empty()) std::printf("\ntorch note: %s\n", run.torch_note.c_str());
  std::printf("\ntotal wall time %.1f s; loadavg at end: %s (other processes on this host skew every figure)\n",
              run.wall_s, run.load_end.c_str());
}

bool write_json(const GemmBenchRun& run) {
  FILE* f = std::fopen(run.opt.json.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", run.opt.json.c_str());
    return false;
  }
  write_json_header(f, run);
  write_json_results(f, run);
  std::fclose(f);
  std::printf("wrote %s\n", run.opt.json.c_str());
  return true;
}

}  // namespace rotor::bench

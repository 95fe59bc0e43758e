#pragma once
// What a bench process reports about itself: peak RSS, minor page faults, the
// allocator actually mapped (tcmalloc or jemalloc when preloaded, else glibc)
// and OPENBLAS_CORETYPE as the process saw it. Read from inside the process, so
// a result says what ran, not what the driver meant to run.
#include <sys/resource.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace rotor::bench {

inline double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: KiB
}

inline long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

inline std::string allocator_name() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("libtcmalloc") != std::string::npos) return "tcmalloc";
    if (line.find("libjemalloc") != std::string::npos) return "jemalloc";
  }
  return "glibc";
}

// JSON value: the variable's text in quotes, or null when unset.
inline std::string openblas_coretype_json() {
  const char* v = std::getenv("OPENBLAS_CORETYPE");
  return v ? "\"" + std::string(v) + "\"" : "null";
}

}  // namespace rotor::bench

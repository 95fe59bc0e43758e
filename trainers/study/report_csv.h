#pragma once
// report.csv's rows: one number per row, its scope (a run or a variant's
// seeds), what it measures and where (split, step, length, scaling).
#include <cmath>
#include <cstdint>
#include <string>

#include "trainers/study/aggregation.h"

namespace rotor {

// scope, variant, seed, metric, split, step, length, scaling, value, std, min, max, n, note.
struct CsvRow {
  std::string scope, variant, seed, metric, split, step, length, scaling;
  double value = NAN, std = NAN, min = NAN, max = NAN;
  int64_t n = 1;
  std::string note;
};

// A row of one run (scope "run"), its value to be set.
CsvRow run_row(const std::string& variant, const std::string& seed, const std::string& metric, double value);
// A variant's row (scope "variant"): the statistics over its seeds.
CsvRow aggregate_row(const std::string& variant, const std::string& metric, const SeedStats& s);

}  // namespace rotor

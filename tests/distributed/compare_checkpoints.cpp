// compare_checkpoints A.h5 B.h5 [REL_TOL]: compares two training checkpoints.
// Without REL_TOL every tensor (parameters, optimizer state), integer and real
// (except wall times) must be bit-identical. With it, the parameters (all
// "model/..." tensors as one vector) must satisfy |a - b| <= REL_TOL |a|
// (Euclidean norms) and the integers (step, sampler) must agree. Per-tensor
// figures are printed but not judged: a tensor whose exact gradient is zero
// (e.g. attention key biases, which softmax ignores) moves by Adam-normalised
// rounding noise, so its relative difference measures nothing. Prints the largest difference; exit 0 when
// they match, 1 when not, 2 on bad usage.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/error.h"
#include "storage/checkpoint.h"

namespace {

template <typename Map>
bool same_keys(const Map& a, const Map& b, const char* kind) {
  bool same = a.size() == b.size();
  for (const auto& [key, value] : a) same = same && b.count(key);
  if (!same) std::printf("the checkpoints hold different %s keys\n", kind);
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: compare_checkpoints A.h5 B.h5 [REL_TOL]\n");
    return 2;
  }
  const bool exact = argc == 3;
  const double tol = exact ? 0.0 : std::atof(argv[3]);
  try {
    const rotor::CheckpointContents a = rotor::read_checkpoint(argv[1]), b = rotor::read_checkpoint(argv[2]);
    if (!same_keys(a.tensors, b.tensors, "tensor") || !same_keys(a.integers, b.integers, "integer")) return 1;
    int64_t differing = 0, elements = 0;
    double worst = 0.0, params_diff2 = 0.0, params_norm2 = 0.0;
    std::string worst_key;
    for (const auto& [key, ta] : a.tensors) {
      const std::vector<double> x = ta.to_doubles(), y = b.tensors.at(key).to_doubles();
      if (x.size() != y.size()) {
        std::printf("%s: shapes differ\n", key.c_str());
        return 1;
      }
      double diff2 = 0.0, norm2 = 0.0;
      for (size_t i = 0; i < x.size(); ++i, ++elements) {
        diff2 += (x[i] - y[i]) * (x[i] - y[i]);
        norm2 += x[i] * x[i];
        // Bit identity of float32/float64 values: their double images are equal (NaN never is).
        differing += !(x[i] == y[i] && std::signbit(x[i]) == std::signbit(y[i]));
      }
      if (key.rfind("model/", 0) != 0) continue;
      params_diff2 += diff2;
      params_norm2 += norm2;
      const double rel = norm2 > 0 ? std::sqrt(diff2 / norm2) : std::sqrt(diff2);
      if (!(rel <= worst)) worst = rel, worst_key = key;
    }
    for (const auto& [key, v] : a.integers)
      if (b.integers.at(key) != v) {
        std::printf("integer %s differs: %lld vs %lld\n", key.c_str(), static_cast<long long>(v),
                    static_cast<long long>(b.integers.at(key)));
        return 1;
      }
    for (const auto& [key, v] : a.reals)
      if (exact && key.find("elapsed") == std::string::npos && b.reals.count(key) &&
          std::memcmp(&v, &b.reals.at(key), sizeof v) != 0 && !(std::isnan(v) && std::isnan(b.reals.at(key)))) {
        std::printf("real %s differs: %.17g vs %.17g\n", key.c_str(), v, b.reals.at(key));
        return 1;
      }
    const double relative = params_norm2 > 0 ? std::sqrt(params_diff2 / params_norm2) : std::sqrt(params_diff2);
    std::printf(
        "%lld of %lld tensor elements differ; parameters' relative difference %.3g (largest in one tensor "
        "%.3g%s%s)\n",
        static_cast<long long>(differing), static_cast<long long>(elements), relative, worst,
        worst_key.empty() ? "" : ", ", worst_key.c_str());
    return (exact ? differing == 0 : relative <= tol) ? 0 : 1;
  } catch (const rotor::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}

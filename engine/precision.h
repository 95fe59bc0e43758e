#pragma once
// The number format of matrix-product inputs (`run.precision`). In bf16 mode
// every float product (linear layers, matmul, the fused attention's tile
// products; forward and backward) rounds its inputs to bfloat16 and
// accumulates in fp32. Everything else stays fp32: master weights, optimizer
// state, softmax, layer norm, losses, reductions, and the rotations, whose
// angles are computed in double. Double computations (gradient checks,
// goldens) ignore the setting. Like NoGradGuard it belongs to the calling
// thread, the one that runs ops; kernels read it only through their callers.
#include <array>
#include <string>
#include <utility>

#include "engine/option_names.h"

namespace rotor {

enum class Precision { fp32, bf16 };

template <>
struct OptionNames<Precision> {
  static constexpr std::array<std::pair<Precision, const char*>, 2> table{
      {{Precision::fp32, "fp32"}, {Precision::bf16, "bf16"}}};
};

Precision matmul_precision();

// For logs: "fp32", or bf16 and how this CPU runs it (native AVX-512 BF16 dot
// products, or bf16-rounded inputs on the fp32 kernels: same number format,
// no speed-up).
std::string describe(Precision p);

// Sets the precision for its scope (a run, a test) and restores the previous one.
class PrecisionScope {
 public:
  explicit PrecisionScope(Precision p);
  ~PrecisionScope();
  PrecisionScope(const PrecisionScope&) = delete;
  PrecisionScope& operator=(const PrecisionScope&) = delete;

 private:
  Precision previous_;
};

}  // namespace rotor

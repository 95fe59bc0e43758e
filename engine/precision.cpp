#include "engine/precision.h"

#include "engine/kernels/cpu_features.h"

namespace rotor {

namespace {
thread_local Precision g_precision = Precision::fp32;
}

Precision matmul_precision() { return g_precision; }

std::string describe(Precision p) {
  if (p == Precision::fp32) return "fp32";
  return kernels::cpu_has_bf16_dot()
             ? "bf16 products (AVX-512 BF16)"
             : "bf16 products emulated (this CPU has no AVX-512 BF16: bf16-rounded inputs on the fp32 kernels, "
               "no speed-up)";
}

PrecisionScope::PrecisionScope(Precision p) : previous_(g_precision) { g_precision = p; }
PrecisionScope::~PrecisionScope() { g_precision = previous_; }

}  // namespace rotor

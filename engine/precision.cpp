#include "engine/precision.h"

namespace rotor {

namespace {
thread_local Precision g_precision = Precision::fp32;
}

Precision matmul_precision() { return g_precision; }

PrecisionScope::PrecisionScope(Precision p) : previous_(g_precision) { g_precision = p; }
PrecisionScope::~PrecisionScope() { g_precision = previous_; }

}  // namespace rotor

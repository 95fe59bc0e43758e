#include "engine/kernels/cpu_features.h"

namespace rotor::kernels {

bool cpu_has_bf16_dot() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512bf16") != 0;
  }();
  return has;
}

}  // namespace rotor::kernels

#pragma once
// Inverted dropout whose keep/drop decision for element i is a pure function
// of (key, i): forward and backward regenerate the same mask, nothing is stored.
#include <cstdint>

#include "engine/random.h"

namespace rotor::kernels {

// y = keep(i) ? x / (1 - p) : 0, accumulating into y when `accumulate`.
template <class T>
void dropout_apply(const T* x, T* y, int64_t n, double p, const RandomKey& key, bool accumulate);

}  // namespace rotor::kernels

#pragma once
// The one argmax of rotor: the predicted class of a row of scores (logits or
// probabilities), the first of equal largest values winning, as in PyTorch.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace rotor {

// The index of the first largest of values[0..n) (0 when n is 0).
template <class T>
int64_t argmax(const T* values, size_t n) {
  return static_cast<int64_t>(std::max_element(values, values + n) - values);
}

}  // namespace rotor

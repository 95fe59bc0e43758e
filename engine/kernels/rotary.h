#pragma once
// Rotary position rotation of [G, N, d] rows. Pair i of the row at position n
// is rotated by the angle with cosine cos[n*half + i] and sine sin[n*half + i]
// (half = r/2 pairs, r <= d rotated dims). `sign` = -1 rotates by the negative
// angle, which is exactly the backward pass.
#include <cstdint>

namespace rotor::kernels {

enum class PairLayout {
  interleaved,  // pairs (2i, 2i+1): RoFormer paper, GPT-J
  half,         // pairs (i, i + r/2): GPT-NeoX, LLaMA
};

template <class T>
void rotary_apply(const T* x, T* y, const T* cos, const T* sin, int64_t G, int64_t N, int64_t d, int64_t r,
                  PairLayout layout, int sign, bool accumulate);

}  // namespace rotor::kernels

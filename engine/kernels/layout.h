#pragma once
// Data-movement kernels: permutation of axes and strided block copies (the
// building block of concat and slice). `accumulate` adds instead of writing,
// which is what the backward passes need.
#include <cstdint>
#include <vector>

#include "engine/shape.h"

namespace rotor::kernels {

// y[perm-ordered index] = x: y's dim i is x's dim perm[i].
template <class T>
void permute(const T* x, const Shape& x_shape, const std::vector<int>& perm, T* y, bool accumulate);

// For each of `outer` rows, copy `len` elements from src + o*src_stride to
// dst + o*dst_stride.
template <class T>
void copy_rows(const T* src, int64_t src_stride, T* dst, int64_t dst_stride, int64_t outer, int64_t len,
               bool accumulate);

}  // namespace rotor::kernels

#pragma once
// Element types. float32 trains; float64 runs the same op code for gradient
// checks and golden comparisons. Kernels are templates over the C++ type and
// ops pick the instantiation at run time with dispatch().
#include <cstddef>
#include <string>

#include "engine/error.h"

namespace rotor {

enum class DType { F32, F64 };

inline std::size_t dtype_size(DType t) { return t == DType::F32 ? 4 : 8; }
inline const char* dtype_name(DType t) { return t == DType::F32 ? "float32" : "float64"; }

// Calls f(float{}) or f(double{}) so the caller can write
//   dispatch(t, [&](auto tag) { using T = decltype(tag); ... });
template <class F>
decltype(auto) dispatch(DType t, F&& f) {
  if (t == DType::F32) return f(float{});
  return f(double{});
}

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() {
  return DType::F32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::F64;
}

}  // namespace rotor

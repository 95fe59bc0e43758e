#pragma once
// Small helpers shared by the optimizer tests.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "engine/parallel.h"
#include "engine/parameters.h"
#include "engine/random.h"

namespace rotor::test {

// A float64 store for hand-computed steps: "w" [2] with weight decay and "b"
// [1] without, flat layout [w0, w1, b0].
inline void make_wb_store(ParameterStore& store, const std::vector<double>& flat_values) {
  store.declare("w", {2}, ParameterInit::zeros(), true);
  store.declare("b", {1}, ParameterInit::zeros(), false);
  store.allocate(0);
  store.values().copy_from(Tensor::from_doubles({3}, DType::F64, flat_values));
}

inline void set_grads(ParameterStore& store, const std::vector<double>& flat_grads) {
  store.grads().copy_from(Tensor::from_doubles({store.total_size()}, DType::F64, flat_grads));
}

// A float32 store of a few hundred thousand elements spread over parameters
// with and without weight decay, so updates span many chunks.
inline void make_large_store(ParameterStore& store, uint64_t seed) {
  store.declare("embed.weight", {1000, 96}, ParameterInit::normal(0.02), true);
  store.declare("fc.weight", {256, 384}, ParameterInit::normal(0.05), true);
  store.declare("fc.bias", {256}, ParameterInit::zeros(), false);
  store.declare("norm.gain", {384}, ParameterInit::ones(), false);
  store.allocate(seed);
}

// Gradients of step `step`: a pure function of (seed, step), like a real batch.
inline void fill_random_grads(ParameterStore& store, uint64_t seed, uint64_t step) {
  const RandomKey key{seed, stream_id("test.grads"), step};
  float* g = store.grads().data<float>();
  for (int64_t i = 0; i < store.total_size(); ++i) g[i] = static_cast<float>(key.normal(static_cast<uint64_t>(i)));
}

// Bitwise equality of two tensors (same dtype and shape required).
inline bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const size_t bytes = static_cast<size_t>(a.numel()) * dtype_size(a.dtype());
  return dispatch(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return std::memcmp(a.data<T>(), b.data<T>(), bytes) == 0;
  });
}

// Sets the OpenMP thread count for its scope and restores the previous one.
class ThreadCountGuard {
 public:
  explicit ThreadCountGuard(int n) : previous_(num_threads()) { set_num_threads(n); }
  ~ThreadCountGuard() { set_num_threads(previous_); }
  ThreadCountGuard(const ThreadCountGuard&) = delete;
  ThreadCountGuard& operator=(const ThreadCountGuard&) = delete;

 private:
  int previous_;
};

}  // namespace rotor::test

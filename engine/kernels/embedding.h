#pragma once
// Row gather and its deterministic scatter-add.
#include <cstdint>

namespace rotor::kernels {

// y[i, :] = table[ids[i], :]   for i < n; table [V, D]
template <class T>
void embedding_forward(const T* table, const int32_t* ids, int64_t n, int64_t D, T* y);
// dtable[ids[i], :] += dy[i, :]. Threads own disjoint column ranges and walk
// the ids in order, so repeated ids add up in the same order every time.
template <class T>
void embedding_backward(const T* dy, const int32_t* ids, int64_t n, int64_t D, T* dtable);

}  // namespace rotor::kernels

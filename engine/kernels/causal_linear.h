#pragma once
// Causal linear attention's running sums over raw [G, N, d] / [G, N, e]
// buffers (G = batch x heads): out_i = sum_{j <= i} (q_i . k_j) v_j.
// The forward carries the prefix state S_i = sum_{j <= i} k_j v_j^T (d x e)
// down the sequence; the backward carries S again for dq_i = S_i dy_i and the
// suffix state Z_j = sum_{i >= j} q_i dy_i^T upwards for dk_j = Z_j v_j and
// dv_j = Z_j^T k_j. O(N d e) time and O(d e) state per group: nothing N x N.
// States are kept in double. Groups run in parallel, each sequence in a fixed
// order, so every bit is independent of the thread count.
#include <cstdint>

namespace rotor::kernels {

struct CausalLinearShape {
  int64_t G = 0, N = 0, d = 0, e = 0;  // groups, positions, q/k features, v features
};

template <class T>
void causal_linear_forward(const CausalLinearShape& s, const T* q, const T* k, const T* v, T* out);

// Adds the gradients into dq, dk, dv; a null one is not computed.
template <class T>
void causal_linear_backward(const CausalLinearShape& s, const T* q, const T* k, const T* v, const T* dout, T* dq, T* dk,
                            T* dv);

}  // namespace rotor::kernels

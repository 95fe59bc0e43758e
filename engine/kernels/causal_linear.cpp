#include "engine/kernels/causal_linear.h"

#include <algorithm>
#include <vector>

#include "engine/parallel.h"

namespace rotor::kernels {
namespace {

// state[a][c] += x[a] * y[c]
template <class T>
void add_outer(std::vector<double>& state, const T* x, const T* y, int64_t d, int64_t e) {
  for (int64_t a = 0; a < d; ++a) {
    const double xa = x[a];
    double* row = state.data() + a * e;
    for (int64_t c = 0; c < e; ++c) row[c] += xa * static_cast<double>(y[c]);
  }
}

// out[c] (+)= sum_a x[a] state[a][c], summed in `acc` (e doubles of scratch)
template <class T>
void add_left_product(const std::vector<double>& state, const T* x, T* out, int64_t d, int64_t e, bool accumulate,
                      std::vector<double>& acc) {
  std::fill(acc.begin(), acc.end(), 0.0);
  for (int64_t a = 0; a < d; ++a) {
    const double xa = x[a];
    const double* row = state.data() + a * e;
    for (int64_t c = 0; c < e; ++c) acc[static_cast<size_t>(c)] += xa * row[c];
  }
  for (int64_t c = 0; c < e; ++c)
    out[c] = static_cast<T>((accumulate ? static_cast<double>(out[c]) : 0.0) + acc[static_cast<size_t>(c)]);
}

// out[a] += sum_c state[a][c] y[c]
template <class T>
void add_right_product(const std::vector<double>& state, const T* y, T* out, int64_t d, int64_t e) {
  for (int64_t a = 0; a < d; ++a) {
    const double* row = state.data() + a * e;
    double acc = 0.0;
    for (int64_t c = 0; c < e; ++c) acc += row[c] * static_cast<double>(y[c]);
    out[a] = static_cast<T>(static_cast<double>(out[a]) + acc);
  }
}

int64_t groups_per_chunk(const CausalLinearShape& s) { return grain_for(s.N * s.d * s.e); }

}  // namespace

template <class T>
void causal_linear_forward(const CausalLinearShape& s, const T* q, const T* k, const T* v, T* out) {
  const int64_t N = s.N, d = s.d, e = s.e;
  parallel_for(s.G, groups_per_chunk(s), [&](int64_t gb, int64_t ge) {
    std::vector<double> state(static_cast<size_t>(d * e)), acc(static_cast<size_t>(e));
    for (int64_t g = gb; g < ge; ++g) {
      std::fill(state.begin(), state.end(), 0.0);
      for (int64_t i = 0; i < N; ++i) {
        const int64_t qk = (g * N + i) * d, ve = (g * N + i) * e;
        add_outer(state, k + qk, v + ve, d, e);
        add_left_product(state, q + qk, out + ve, d, e, false, acc);
      }
    }
  });
}

template <class T>
void causal_linear_backward(const CausalLinearShape& s, const T* q, const T* k, const T* v, const T* dout, T* dq, T* dk,
                            T* dv) {
  const int64_t N = s.N, d = s.d, e = s.e;
  parallel_for(s.G, groups_per_chunk(s), [&](int64_t gb, int64_t ge) {
    std::vector<double> state(static_cast<size_t>(d * e)), acc(static_cast<size_t>(e));
    for (int64_t g = gb; g < ge; ++g) {
      if (dq != nullptr) {  // prefix: dq_i = S_i dy_i
        std::fill(state.begin(), state.end(), 0.0);
        for (int64_t i = 0; i < N; ++i) {
          const int64_t qk = (g * N + i) * d, ve = (g * N + i) * e;
          add_outer(state, k + qk, v + ve, d, e);
          add_right_product(state, dout + ve, dq + qk, d, e);
        }
      }
      if (dk == nullptr && dv == nullptr) continue;
      std::fill(state.begin(), state.end(), 0.0);  // suffix: Z_j = sum_{i >= j} q_i dy_i^T
      for (int64_t j = N - 1; j >= 0; --j) {
        const int64_t qk = (g * N + j) * d, ve = (g * N + j) * e;
        add_outer(state, q + qk, dout + ve, d, e);
        if (dk != nullptr) add_right_product(state, v + ve, dk + qk, d, e);
        if (dv != nullptr) add_left_product(state, k + qk, dv + ve, d, e, true, acc);
      }
    }
  });
}

template void causal_linear_forward<float>(const CausalLinearShape&, const float*, const float*, const float*, float*);
template void causal_linear_forward<double>(const CausalLinearShape&, const double*, const double*, const double*,
                                            double*);
template void causal_linear_backward<float>(const CausalLinearShape&, const float*, const float*, const float*,
                                            const float*, float*, float*, float*);
template void causal_linear_backward<double>(const CausalLinearShape&, const double*, const double*, const double*,
                                             const double*, double*, double*, double*);

}  // namespace rotor::kernels

#pragma once
// Row-wise softmax family over [rows, C] and the fused cross-entropy.
#include <cstdint>

namespace rotor::kernels {

// y = softmax(x) per row, in place allowed. -inf entries get probability 0;
// a row of only -inf becomes all zeros.
template <class T>
void softmax_forward(const T* x, T* y, int64_t rows, int64_t C);
// dx += y * (dy - sum(dy * y))
template <class T>
void softmax_backward(const T* y, const T* dy, T* dx, int64_t rows, int64_t C);

// y = x - logsumexp(x) per row
template <class T>
void log_softmax_forward(const T* x, T* y, int64_t rows, int64_t C);
// dx += dy - exp(y) * sum(dy)
template <class T>
void log_softmax_backward(const T* y, const T* dy, T* dx, int64_t rows, int64_t C);

// Per-row loss with target distribution q = (1 - s) onehot(label) + s / C:
// loss_r = -sum_c q_c log p_c. Rows whose label == ignore get 0 and count 0.
// Writes log-probabilities to logp; returns the sum of row losses (in double)
// and the number of counted rows through `count`.
template <class T>
double cross_entropy_forward(const T* logits, const int32_t* labels, T* logp, int64_t rows, int64_t C, int32_t ignore,
                             double smoothing, int64_t* count);
// dlogits += (p - q) * scale for counted rows
template <class T>
void cross_entropy_backward(const T* logp, const int32_t* labels, T* dlogits, int64_t rows, int64_t C, int32_t ignore,
                            double smoothing, double scale);

}  // namespace rotor::kernels

// Contextual positions, CoPE's core (O. Golovneva, T. Wang, J. Weston, S. Sukhbaatar, "Contextual
// Position Encoding: Learning to Count What's Important", arXiv:2405.18719), as one op: the gates,
// their counts, the clamp and the interpolation. Row i of x (a layer's logits, -inf at masked keys)
// and row i of z (the query against each integer position's embedding) give
//   g_t  = sigmoid(x_it)                                  (0 at a masked key)
//   p_ij = min(sum of g_t over t from min(i, j) to max(i, j), P - 1)
//   out_ij = (1 - w) z_i[floor p_ij] + w z_i[ceil p_ij],   w = p_ij - floor p_ij.
// The paper is causal: its count runs from the key up to the query (its code's flip-cumsum-flip of
// the masked gates). Counting the keys between query and key on either side is the same sum for a
// key before the query and its mirror image for a key after it. Each row is computed alone, in
// double, summing outward from the query, so any thread count gives the same bits.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/ops.h"
#include "engine/ops/op_util.h"
#include "engine/parallel.h"

namespace rotor {
namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// One row's gates and clamped counts; a count at `last` (P - 1) was clamped: no gradient through it.
struct RowCounts {
  std::vector<double> gate, count;
  double last;

  template <class T>
  RowCounts(const T* x, int64_t n, int64_t i, double last_position) : gate(n), count(n), last(last_position) {
    for (int64_t t = 0; t < n; ++t) gate[t] = sigmoid(static_cast<double>(x[t]));
    double sum = 0;
    for (int64_t j = i; j >= 0; --j) count[j] = std::min(sum += gate[j], last);
    sum = gate[i];
    for (int64_t j = i + 1; j < n; ++j) count[j] = std::min(sum += gate[j], last);
  }
  bool clamped(int64_t j) const { return count[j] >= last; }
};

template <class T>
void forward_row(const T* x, const T* z, T* out, int64_t n, int64_t P, int64_t i) {
  const RowCounts row(x, n, i, static_cast<double>(P - 1));
  for (int64_t j = 0; j < n; ++j) {
    const double p = row.count[j], f = std::floor(p), w = p - f;
    const auto lo = static_cast<int64_t>(f), hi = static_cast<int64_t>(std::ceil(p));
    out[j] = static_cast<T>((1 - w) * static_cast<double>(z[lo]) + w * static_cast<double>(z[hi]));
  }
}

// dz row i and dx row i from dout row i: the interpolation's two weights, then the count's
// derivative d out / d p = z[ceil p] - z[floor p] carried back to every gate it summed (a prefix sum
// of dp over keys before the query, a suffix sum over keys after it).
template <class T>
void backward_row(const T* x, const T* z, const T* dout, T* dx, T* dz, int64_t n, int64_t P, int64_t i) {
  const RowCounts row(x, n, i, static_cast<double>(P - 1));
  std::vector<double> dp(n);
  for (int64_t j = 0; j < n; ++j) {
    const double p = row.count[j], f = std::floor(p), w = p - f, g = static_cast<double>(dout[j]);
    const auto lo = static_cast<int64_t>(f), hi = static_cast<int64_t>(std::ceil(p));
    if (dz != nullptr) {
      dz[lo] += static_cast<T>((1 - w) * g);
      dz[hi] += static_cast<T>(w * g);
    }
    dp[j] = row.clamped(j) ? 0.0 : g * (static_cast<double>(z[hi]) - static_cast<double>(z[lo]));
  }
  if (dx == nullptr) return;
  std::vector<double> dgate(n, 0.0);
  double before = 0, after = 0;
  for (int64_t t = 0; t <= i; ++t) dgate[t] += before += dp[t];  // keys j <= t <= i
  for (int64_t t = n - 1; t >= i; --t) {                         // keys j >= t, j > i
    if (t > i) after += dp[t];
    dgate[t] += after;
  }
  for (int64_t t = 0; t < n; ++t) {
    const double g = row.gate[t];
    dx[t] += static_cast<T>(dgate[t] * g * (1 - g));
  }
}

}  // namespace

Var contextual_positions(const Var& x, const Var& z) {
  detail::check_rank_at_least(x, 2, "contextual_positions", "x");
  detail::check_same_dtype(x, z, "contextual_positions");
  const int64_t n = x.size(-1), P = z.size(-1), rows = x.numel() / n;
  Shape expected = x.shape();
  expected.back() = P;
  if (x.size(-2) != n || z.shape() != expected)
    throw ShapeError("contextual_positions: x " + to_string(x.shape()) + " must be [..., N, N] and z " +
                     to_string(z.shape()) + " [..., N, P] with the same leading dims");
  if (P < 1) throw ValueError("contextual_positions: z needs at least one position");
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *xs = x.value().data<T>(), *zs = z.value().data<T>();
    T* out = y.data<T>();
    parallel_for(rows, grain_for(n * 8), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) forward_row(xs + r * n, zs + r * P, out + r * n, n, P, r % n);
    });
  });
  return make_result(OpKind::contextual_positions, y, {x, z}, ValueReads::only_inputs({0, 1}), [=](Node& node) {
    dispatch(node.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *xs = node.parents[0]->value.data<T>(), *zs = node.parents[1]->value.data<T>();
      const T* dout = node.grad.data<T>();
      Tensor* gx = detail::input_grad(node, 0);
      Tensor* gz = detail::input_grad(node, 1);
      T* dx = gx != nullptr ? gx->data<T>() : nullptr;
      T* dz = gz != nullptr ? gz->data<T>() : nullptr;
      parallel_for(rows, grain_for(n * 16), [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r)
          backward_row(xs + r * n, zs + r * P, dout + r * n, dx ? dx + r * n : nullptr, dz ? dz + r * P : nullptr, n, P,
                       r % n);
      });
    });
  });
}

}  // namespace rotor

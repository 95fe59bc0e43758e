#include "engine/kernels/elementwise.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/parallel.h"

namespace rotor::kernels {
namespace {

constexpr double kSqrt2OverPi = 0.7978845608028654;  // sqrt(2/pi)
constexpr double kInvSqrt2 = 0.7071067811865476;
constexpr double kInvSqrt2Pi = 0.3989422804014327;  // 1/sqrt(2 pi)

// The normal CDF and density for GELU. double calls libm; float uses
// branch-free forms that the compiler vectorises (libm's erff/expf are scalar
// calls and were ~10% of a training step): erf as the odd/even rational
// minimax approximation on [-4, 4] used by Eigen and XLA (|error| < 2e-7,
// erf is +-1 in float outside), exp(-x^2/2) by range reduction to 2^k e^r
// with Cephes's expf polynomial (within 2 ulp), clamped to [-87, 0].
inline double normal_cdf(double x) { return 0.5 * (1.0 + std::erf(x * kInvSqrt2)); }
inline double normal_pdf(double x) { return kInvSqrt2Pi * std::exp(-0.5 * x * x); }

inline float normal_cdf(float x) {
  const float z = std::min(4.0f, std::max(-4.0f, x * float(kInvSqrt2)));
  const float z2 = z * z;
  float p = z2 * -2.72614225801306e-10f + 2.77068142495902e-08f;
  p = z2 * p - 2.10102402082508e-06f;
  p = z2 * p - 5.69250639462346e-05f;
  p = z2 * p - 7.34990630326855e-04f;
  p = z2 * p - 2.95459980854025e-03f;
  p = z2 * p - 1.60960333262415e-02f;
  float q = z2 * -1.45660718464996e-05f - 2.13374055278905e-04f;
  q = z2 * q - 1.68282697438203e-03f;
  q = z2 * q - 7.37332916720468e-03f;
  q = z2 * q - 1.42647390514189e-02f;
  return std::min(1.0f, std::max(0.0f, 0.5f * (1.0f + z * p / q)));  // the fit overshoots +-1 near |z| = 4
}

inline float normal_pdf(float x) {
  const float t = std::max(-87.0f, -0.5f * x * x);
  const float k = (t * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round to nearest
  const float r = (t - k * 0.693359375f) + k * 2.12194440e-4f;             // t - k ln2, two parts
  float e = 1.9875691500e-4f;
  e = e * r + 1.3981999507e-3f;
  e = e * r + 8.3334519073e-3f;
  e = e * r + 4.1665795894e-2f;
  e = e * r + 1.6666665459e-1f;
  e = e * r + 5.0000001201e-1f;
  e = e * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(k) + 127) << 23;  // 2^k, k in [-126, 0]
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return float(kInvSqrt2Pi) * e * scale;
}

template <class T, class F>
void map(int64_t n, F f) {
  parallel_for(n, kElementwiseGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i);
  });
}

// Per-dim strides of a (left-padded) input inside the broadcast output shape;
// 0 where the input is broadcast.
std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  const size_t r = out.size(), pad = r - in.size();
  std::vector<int64_t> st(r, 0);
  int64_t s = 1;
  for (size_t i = r; i-- > pad;) {
    const int64_t d = in[i - pad];
    st[i] = d == 1 ? 0 : s;
    s *= d;
  }
  return st;
}

// acc[j] += sum over r of g[r * cols + j], r ascending: the bits of the
// general strided loop, with contiguous (vectorisable) row reads.
template <class T>
void sum_leading_rows(const T* g, int64_t rows, int64_t cols, T* acc) {
  parallel_for(cols, std::max<int64_t>(64, grain_for(rows)), [&](int64_t b, int64_t e) {
    std::vector<T> s(static_cast<size_t>(e - b), T(0));
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = g + r * cols + b;
      for (int64_t j = 0; j < e - b; ++j) s[j] += row[j];
    }
    for (int64_t j = b; j < e; ++j) acc[j] += s[j - b];
  });
}

}  // namespace

template <class T>
void unary_forward(Unary f, const T* x, T* y, int64_t n) {
  switch (f) {
    case Unary::relu:
      map<T>(n, [&](int64_t i) { y[i] = x[i] > T(0) ? x[i] : T(0); });
      break;
    case Unary::elu:
      map<T>(n, [&](int64_t i) { y[i] = x[i] > T(0) ? x[i] : std::expm1(x[i]); });
      break;
    case Unary::tanh:
      map<T>(n, [&](int64_t i) { y[i] = std::tanh(x[i]); });
      break;
    case Unary::gelu_erf:
      map<T>(n, [&](int64_t i) { y[i] = x[i] * normal_cdf(x[i]); });
      break;
    case Unary::gelu_tanh:
      map<T>(n, [&](int64_t i) {
        const T u = T(kSqrt2OverPi) * (x[i] + T(0.044715) * x[i] * x[i] * x[i]);
        y[i] = T(0.5) * x[i] * (T(1) + std::tanh(u));
      });
      break;
    case Unary::exp:
      map<T>(n, [&](int64_t i) { y[i] = std::exp(x[i]); });
      break;
    case Unary::log:
      map<T>(n, [&](int64_t i) { y[i] = std::log(x[i]); });
      break;
    case Unary::sqrt:
      map<T>(n, [&](int64_t i) { y[i] = std::sqrt(x[i]); });
      break;
    case Unary::neg:
      map<T>(n, [&](int64_t i) { y[i] = -x[i]; });
      break;
  }
}

template <class T>
void unary_backward(Unary f, const T* x, const T* y, const T* dy, T* dx, int64_t n) {
  switch (f) {
    case Unary::relu:
      map<T>(n, [&](int64_t i) { dx[i] += x[i] > T(0) ? dy[i] : T(0); });
      break;
    case Unary::elu:
      map<T>(n, [&](int64_t i) { dx[i] += x[i] > T(0) ? dy[i] : dy[i] * (y[i] + T(1)); });
      break;
    case Unary::tanh:
      map<T>(n, [&](int64_t i) { dx[i] += dy[i] * (T(1) - y[i] * y[i]); });
      break;
    case Unary::gelu_erf:
      map<T>(n, [&](int64_t i) { dx[i] += dy[i] * (normal_cdf(x[i]) + x[i] * normal_pdf(x[i])); });
      break;
    case Unary::gelu_tanh:
      map<T>(n, [&](int64_t i) {
        const T x2 = x[i] * x[i];
        const T t = std::tanh(T(kSqrt2OverPi) * (x[i] + T(0.044715) * x2 * x[i]));
        const T du = T(kSqrt2OverPi) * (T(1) + T(3 * 0.044715) * x2);
        dx[i] += dy[i] * (T(0.5) * (T(1) + t) + T(0.5) * x[i] * (T(1) - t * t) * du);
      });
      break;
    case Unary::exp:
      map<T>(n, [&](int64_t i) { dx[i] += dy[i] * y[i]; });
      break;
    case Unary::log:
      map<T>(n, [&](int64_t i) { dx[i] += dy[i] / x[i]; });
      break;
    case Unary::sqrt:
      map<T>(n, [&](int64_t i) { dx[i] += dy[i] * T(0.5) / y[i]; });
      break;
    case Unary::neg:
      map<T>(n, [&](int64_t i) { dx[i] -= dy[i]; });
      break;
  }
}

template <class T>
void binary_forward(Binary op, const T* a, const Shape& as, const T* b, const Shape& bs, T* out, const Shape& os) {
  auto apply = [op](T u, T v) {
    switch (op) {
      case Binary::add:
        return u + v;
      case Binary::sub:
        return u - v;
      case Binary::mul:
        return u * v;
      case Binary::div:
        return u / v;
    }
    return u;
  };
  const int64_t n = numel(os);
  if (as == os && bs == os) {
    map<T>(n, [&](int64_t i) { out[i] = apply(a[i], b[i]); });
    return;
  }
  // General case: rows of the last output dim, strided reads of a and b.
  const int r = static_cast<int>(os.size());
  const auto sa = broadcast_strides(as, os), sb = broadcast_strides(bs, os);
  const int64_t inner = r ? os[r - 1] : 1, rows = inner ? n / inner : 0;
  const int64_t ia = r ? sa[r - 1] : 0, ib = r ? sb[r - 1] : 0;
  parallel_for(rows, grain_for(inner), [&](int64_t rb, int64_t re) {
    for (int64_t row = rb; row < re; ++row) {
      int64_t rem = row, oa = 0, ob = 0;
      for (int d = r - 2; d >= 0; --d) {
        const int64_t idx = rem % os[d];
        rem /= os[d];
        oa += idx * sa[d];
        ob += idx * sb[d];
      }
      T* o = out + row * inner;
      for (int64_t j = 0; j < inner; ++j) o[j] = apply(a[oa + j * ia], b[ob + j * ib]);
    }
  });
}

template <class T>
void affine_scalar(const T* x, T* y, int64_t n, double scale, double shift) {
  const T s = static_cast<T>(scale), t = static_cast<T>(shift);
  map<T>(n, [&](int64_t i) { y[i] = x[i] * s + t; });
}

template <class T>
void pow_scalar_forward(const T* x, T* y, int64_t n, double p) {
  map<T>(n, [&](int64_t i) { y[i] = std::pow(x[i], static_cast<T>(p)); });
}

template <class T>
void pow_scalar_backward(const T* x, const T* dy, T* dx, int64_t n, double p) {
  map<T>(n, [&](int64_t i) { dx[i] += dy[i] * static_cast<T>(p) * std::pow(x[i], static_cast<T>(p - 1)); });
}

template <class T>
void sum_to_shape(const T* g, const Shape& from, T* acc, const Shape& to) {
  const int64_t n_to = numel(to);
  if (from == to) {
    map<T>(n_to, [&](int64_t i) { acc[i] += g[i]; });
    return;
  }
  const int r = static_cast<int>(from.size()), pad = r - static_cast<int>(to.size());
  // Output strides of `from`; split dims into kept (extent matches) and reduced.
  std::vector<int64_t> stride(r);
  for (int64_t s = 1, d = r - 1; d >= 0; --d) {
    stride[d] = s;
    s *= from[d];
  }
  std::vector<int> kept, reduced;
  for (int d = 0; d < r; ++d) {
    const int64_t td = d < pad ? 1 : to[d - pad];
    (td == from[d] ? kept : reduced).push_back(d);
  }
  int64_t red_count = 1;
  for (int d : reduced) red_count *= from[d];
  if (kept.empty() || reduced.empty() || reduced.back() < kept.front()) {
    // Leading dims reduced (a bias over rows, a table over the batch): add
    // whole rows into per-column partials, in the same order as below.
    sum_leading_rows(g, red_count, n_to, acc);
    return;
  }
  parallel_for(n_to, grain_for(red_count), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t rem = t, base = 0;
      for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
        base += (rem % from[*it]) * stride[*it];
        rem /= from[*it];
      }
      T s = T(0);
      for (int64_t k = 0; k < red_count; ++k) {
        int64_t rr = k, off = base;
        for (auto it = reduced.rbegin(); it != reduced.rend(); ++it) {
          off += (rr % from[*it]) * stride[*it];
          rr /= from[*it];
        }
        s += g[off];
      }
      acc[t] += s;
    }
  });
}

template <class T>
void axpy(const T* x, T* acc, int64_t n, double scale) {
  const T s = static_cast<T>(scale);
  map<T>(n, [&](int64_t i) { acc[i] += x[i] * s; });
}

#define ROTOR_INSTANTIATE(T)                                                                                 \
  template void unary_forward<T>(Unary, const T*, T*, int64_t);                                              \
  template void unary_backward<T>(Unary, const T*, const T*, const T*, T*, int64_t);                         \
  template void binary_forward<T>(Binary, const T*, const Shape&, const T*, const Shape&, T*, const Shape&); \
  template void affine_scalar<T>(const T*, T*, int64_t, double, double);                                     \
  template void pow_scalar_forward<T>(const T*, T*, int64_t, double);                                        \
  template void pow_scalar_backward<T>(const T*, const T*, T*, int64_t, double);                             \
  template void sum_to_shape<T>(const T*, const Shape&, T*, const Shape&);                                   \
  template void axpy<T>(const T*, T*, int64_t, double);
ROTOR_INSTANTIATE(float)
ROTOR_INSTANTIATE(double)
#undef ROTOR_INSTANTIATE

}  // namespace rotor::kernels

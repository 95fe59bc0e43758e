#pragma once
// A small pair bias for the attention tests: b_h(i, j) = w_h tanh(a i/8 - b j/8),
// which depends on i and j separately whenever a != b. Parameters w [H], a [1]
// and b [1]; values are read when the bias is built (one per forward).
#include <cmath>
#include <vector>

#include "engine/ops.h"
#include "engine/pair_bias.h"

namespace rotor::test {

class WavePairBias : public PairBias {
 public:
  WavePairBias(Var w, Var a, Var b)
      : w_(std::move(w)), a_(std::move(a)), b_(std::move(b)), weights_(w_.value().to_doubles()) {
    ra_ = a_.value().to_doubles()[0] / 8;
    rb_ = b_.value().to_doubles()[0] / 8;
  }

  int64_t heads() const override { return w_.numel(); }
  std::vector<Var> parameters() const override { return {w_, a_, b_}; }

  void fill(const PairTile& t, double* out, int64_t ld) const override {
    for (int64_t r = 0; r < t.rows; ++r)
      for (int64_t c = 0; c < t.cols; ++c) out[r * ld + c] = weights_[t.head] * wave(t.i0 + r, t.j0 + c);
  }

  void accumulate_gradients(const PairTile& t, const double* dbias, int64_t ld, double* grads) const override {
    const int64_t H = heads();
    for (int64_t r = 0; r < t.rows; ++r)
      for (int64_t c = 0; c < t.cols; ++c) {
        const int64_t i = t.i0 + r, j = t.j0 + c;
        const double g = dbias[r * ld + c], y = wave(i, j), dz = g * weights_[t.head] * (1 - y * y);
        grads[t.head] += g * y;
        grads[H] += dz * static_cast<double>(i) / 8;
        grads[H + 1] -= dz * static_cast<double>(j) / 8;
      }
  }

  Var compose(int64_t n) const override {
    std::vector<double> rows(static_cast<size_t>(n * n)), cols(rows.size());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        rows[i * n + j] = static_cast<double>(i) / 8;
        cols[i * n + j] = static_cast<double>(j) / 8;
      }
    const DType dt = w_.dtype();
    const Var z =
        sub(mul(a_, Var(Tensor::from_doubles({n, n}, dt, rows))), mul(b_, Var(Tensor::from_doubles({n, n}, dt, cols))));
    return mul(reshape(w_, {heads(), 1, 1}), reshape(tanh(z), {1, n, n}));
  }

 private:
  double wave(int64_t i, int64_t j) const {
    return std::tanh(ra_ * static_cast<double>(i) - rb_ * static_cast<double>(j));
  }

  Var w_, a_, b_;
  std::vector<double> weights_;
  double ra_ = 0, rb_ = 0;
};

}  // namespace rotor::test

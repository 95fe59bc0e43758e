// Rotary position rotation (RoPE's core). The angles come from the caller
// (models/ computes them in double); this op only rotates.
#include <string>

#include "engine/kernels/rotary.h"
#include "engine/ops.h"
#include "engine/ops/op_util.h"

namespace rotor {

Var rotary(const Var& x, const Tensor& cos, const Tensor& sin, RotaryLayout layout) {
  detail::check_rank_at_least(x, 2, "rotary", "x");
  const int64_t N = x.size(-2), d = x.size(-1), G = x.numel() / (N * d);
  if (cos.rank() != 2 || cos.shape() != sin.shape() || cos.size(0) != N || 2 * cos.size(1) > d)
    throw ShapeError("rotary: angle tables " + to_string(cos.shape()) + " do not fit input " + to_string(x.shape()) +
                     " (expected [" + std::to_string(N) + ", r/2] with r <= " + std::to_string(d) + ")");
  const int64_t r = 2 * cos.size(1);
  const auto pairs = layout == RotaryLayout::interleaved ? kernels::PairLayout::interleaved : kernels::PairLayout::half;
  // The tables in the input's precision (angles themselves were computed in double).
  const Tensor c = cos.to(x.dtype()), s = sin.to(x.dtype());
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::rotary_apply<T>(x.value().data<T>(), y.data<T>(), c.data<T>(), s.data<T>(), G, N, d, r, pairs, +1, false);
  });
  return make_result(OpKind::rotary, y, {x}, ValueReads::none(), [=](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* gx = detail::input_grad(n, 0))
        kernels::rotary_apply<T>(n.grad.data<T>(), gx->data<T>(), c.data<T>(), s.data<T>(), G, N, d, r, pairs, -1,
                                 true);
    });
  });
}

}  // namespace rotor

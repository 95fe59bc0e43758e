// Layer normalisation over the last dim.
#include "engine/kernels/layer_norm.h"
#include "engine/ops.h"
#include "engine/ops/op_util.h"

namespace rotor {

Var layer_norm(const Var& x, const Var& weight, const Var& bias, double eps) {
  detail::check_rank_at_least(x, 1, "layer_norm", "x");
  const int64_t D = x.size(-1), rows = x.numel() / D;
  if (weight.shape() != Shape{D} || bias.shape() != Shape{D})
    throw ShapeError("layer_norm: weight " + to_string(weight.shape()) + " and bias " + to_string(bias.shape()) +
                     " must both be [" + std::to_string(D) + "]");
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  Tensor mean = Tensor::empty({rows}, x.dtype()), rstd = Tensor::empty({rows}, x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::layer_norm_forward<T>(x.value().data<T>(), weight.value().data<T>(), bias.value().data<T>(), y.data<T>(),
                                   mean.data<T>(), rstd.data<T>(), rows, D, eps);
  });
  return make_result(OpKind::layer_norm, y, {x, weight, bias}, ValueReads::only_inputs({0, 1}), [=](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      Tensor* gx = detail::input_grad(n, 0);
      Tensor* gw = detail::input_grad(n, 1);
      Tensor* gb = detail::input_grad(n, 2);
      kernels::layer_norm_backward<T>(n.parents[0]->value.data<T>(), n.parents[1]->value.data<T>(), mean.data<T>(),
                                      rstd.data<T>(), n.grad.data<T>(), gx ? gx->data<T>() : nullptr,
                                      gw ? gw->data<T>() : nullptr, gb ? gb->data<T>() : nullptr, rows, D);
    });
  });
}

}  // namespace rotor

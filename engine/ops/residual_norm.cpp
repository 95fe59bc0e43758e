// The fused residual step: add(x, dropout(y)), optionally followed by layer_norm.
#include <string>

#include "engine/kernels/residual_norm.h"
#include "engine/ops.h"
#include "engine/ops/op_util.h"

namespace rotor {
namespace {

void check_residual(const Var& x, const Var& y, double p, const char* op) {
  if (p < 0.0 || p >= 1.0) throw ValueError(std::string(op) + ": p must be in [0, 1), got " + std::to_string(p));
  detail::check_same_dtype(x, y, op);
  if (x.shape() != y.shape())
    throw ShapeError(std::string(op) + ": x " + to_string(x.shape()) + " and y " + to_string(y.shape()) +
                     " must have the same shape");
}

}  // namespace

Var add_dropout(const Var& x, const Var& y, double p, const RandomKey& key) {
  check_residual(x, y, p, "add_dropout");
  Tensor h = Tensor::empty(x.shape(), x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::add_dropout_forward<T>(x.value().data<T>(), y.value().data<T>(), h.data<T>(), h.numel(), p, key);
  });
  // The backward reads no values: the mask is drawn again from its key.
  return make_result(OpKind::add_dropout, h, {x, y}, ValueReads::none(), [p, key](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      Tensor* gx = detail::input_grad(n, 0);
      Tensor* gy = detail::input_grad(n, 1);
      kernels::add_dropout_backward<T>(n.grad.data<T>(), gx ? gx->data<T>() : nullptr, gy ? gy->data<T>() : nullptr,
                                       n.value.numel(), p, key);
    });
  });
}

ResidualNorm residual_norm(const Var& x, const Var& y, double p, const RandomKey& key, const Var& weight,
                           const Var& bias, double eps) {
  check_residual(x, y, p, "residual_norm");
  detail::check_rank_at_least(x, 1, "residual_norm", "x");
  const int64_t D = x.size(-1), rows = x.numel() / D;
  if (weight.shape() != Shape{D} || bias.shape() != Shape{D})
    throw ShapeError("residual_norm: weight " + to_string(weight.shape()) + " and bias " + to_string(bias.shape()) +
                     " must both be [" + std::to_string(D) + "]");
  Tensor h = Tensor::empty(x.shape(), x.dtype()), n = Tensor::empty(x.shape(), x.dtype());
  Tensor mean = Tensor::empty({rows}, x.dtype()), rstd = Tensor::empty({rows}, x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::residual_norm_forward<T>(x.value().data<T>(), y.value().data<T>(), p, key, weight.value().data<T>(),
                                      bias.value().data<T>(), h.data<T>(), n.data<T>(), mean.data<T>(), rstd.data<T>(),
                                      rows, D, eps);
  });
  // The backward reads h (captured here), the weight and the row statistics; never x or y.
  auto backward = [=](Node& hub, const std::vector<Tensor>& grads) {
    dispatch(h.dtype(), [&](auto tag) {
      using T = decltype(tag);
      auto data = [](Tensor* t) { return t ? t->data<T>() : nullptr; };
      auto grad = [&](size_t i) { return grads[i].defined() ? grads[i].data<T>() : nullptr; };
      // Weight and bias get a gradient only through n, as layer_norm's would.
      auto norm_grad = [&](size_t i) { return grads[1].defined() ? data(detail::input_grad(hub, i)) : nullptr; };
      kernels::residual_norm_backward<T>(h.data<T>(), hub.parents[2]->value.data<T>(), mean.data<T>(), rstd.data<T>(),
                                         grad(0), grad(1), data(detail::input_grad(hub, 0)),
                                         data(detail::input_grad(hub, 1)), norm_grad(2), norm_grad(3), p, key, rows, D);
    });
  };
  std::vector<Var> out =
      make_results(OpKind::residual_norm, {h, n}, {x, y, weight, bias}, ValueReads::only_inputs({2}), backward);
  return {out[0], out[1]};
}

}  // namespace rotor

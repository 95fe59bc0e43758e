// Dropout.
#include <string>

#include "engine/kernels/dropout.h"
#include "engine/ops.h"
#include "engine/ops/op_util.h"

namespace rotor {

Var dropout(const Var& x, double p, const RandomKey& key, bool training) {
  if (p < 0.0 || p >= 1.0) throw ValueError("dropout: p must be in [0, 1), got " + std::to_string(p));
  if (!training || p == 0.0) return x;
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::dropout_apply<T>(x.value().data<T>(), y.data<T>(), y.numel(), p, key, false);
  });
  // The backward reads no values: the mask is drawn again from its counter-based key.
  return make_result(OpKind::dropout, y, {x}, ValueReads::none(), [p, key](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* gx = detail::input_grad(n, 0))
        kernels::dropout_apply<T>(n.grad.data<T>(), gx->data<T>(), n.value.numel(), p, key, true);
    });
  });
}

}  // namespace rotor

// softmax (with an additive mask), log_softmax and cross-entropy.
#include <string>

#include "engine/kernels/elementwise.h"
#include "engine/kernels/softmax.h"
#include "engine/ops.h"
#include "engine/ops/op_util.h"

namespace rotor {

Var softmax(const Var& x, const Tensor& mask) {
  detail::check_rank_at_least(x, 1, "softmax", "x");
  const int64_t C = x.size(-1), rows = x.numel() / C;
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.value().data<T>();
    if (mask.defined()) {
      if (mask.dtype() != x.dtype()) throw ValueError("softmax: mask dtype differs from the input's");
      if (broadcast_shapes(x.shape(), mask.shape(), "softmax") != x.shape())
        throw ShapeError("softmax: mask " + to_string(mask.shape()) + " does not broadcast to " + to_string(x.shape()));
      kernels::binary_forward<T>(kernels::Binary::add, in, x.shape(), mask.data<T>(), mask.shape(), y.data<T>(),
                                 x.shape());
      in = y.data<T>();
    }
    kernels::softmax_forward<T>(in, y.data<T>(), rows, C);
  });
  return make_result(OpKind::softmax, y, {x}, ValueReads::only_output(), [rows, C](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* gx = detail::input_grad(n, 0))
        kernels::softmax_backward<T>(n.value.data<T>(), n.grad.data<T>(), gx->data<T>(), rows, C);
    });
  });
}

Var log_softmax(const Var& x) {
  detail::check_rank_at_least(x, 1, "log_softmax", "x");
  const int64_t C = x.size(-1), rows = x.numel() / C;
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::log_softmax_forward<T>(x.value().data<T>(), y.data<T>(), rows, C);
  });
  return make_result(OpKind::log_softmax, y, {x}, ValueReads::only_output(), [rows, C](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* gx = detail::input_grad(n, 0))
        kernels::log_softmax_backward<T>(n.value.data<T>(), n.grad.data<T>(), gx->data<T>(), rows, C);
    });
  });
}

Var cross_entropy(const Var& logits, const std::vector<int32_t>& labels, CrossEntropyOptions opt) {
  if (logits.rank() != 2) throw ShapeError("cross_entropy: logits must be [N, C], got " + to_string(logits.shape()));
  const int64_t rows = logits.size(0), C = logits.size(1);
  if (static_cast<int64_t>(labels.size()) != rows)
    throw ShapeError("cross_entropy: " + std::to_string(labels.size()) + " labels for " + std::to_string(rows) +
                     " rows");
  for (int32_t l : labels)
    if (l != opt.ignore_index && (l < 0 || l >= C))
      throw ValueError("cross_entropy: label " + std::to_string(l) + " is outside 0.." + std::to_string(C - 1));
  if (opt.label_smoothing < 0.0 || opt.label_smoothing > 1.0)
    throw ValueError("cross_entropy: label_smoothing must be in [0, 1], got " + std::to_string(opt.label_smoothing));
  Tensor logp = Tensor::empty(logits.shape(), logits.dtype());
  int64_t count = 0;
  const double total = dispatch(logits.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return kernels::cross_entropy_forward<T>(logits.value().data<T>(), labels.data(), logp.data<T>(), rows, C,
                                             opt.ignore_index, opt.label_smoothing, &count);
  });
  const double scale = count ? 1.0 / static_cast<double>(count) : 0.0;
  Tensor loss = Tensor::scalar(logits.dtype(), total * scale);
  // The backward reads the log-probabilities the closure keeps, not the logits.
  return make_result(OpKind::cross_entropy, loss, {logits}, ValueReads::none(), [=](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* g = detail::input_grad(n, 0))
        kernels::cross_entropy_backward<T>(logp.data<T>(), labels.data(), g->data<T>(), rows, C, opt.ignore_index,
                                           opt.label_smoothing, scale * n.grad.item());
    });
  });
}

}  // namespace rotor

// sum / mean over a dim, and masked pooling over the valid tokens of a batch.
#include <memory>
#include <string>

#include "engine/kernels/reduce.h"
#include "engine/ops.h"
#include "engine/ops/op_util.h"

namespace rotor {
namespace {

Var reduce(OpKind kind, const Var& x, int dim, bool keepdim, bool average) {
  const int d = normalize_dim(dim, x.rank(), op_name(kind).data());
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < d; ++i) outer *= x.shape()[i];
  for (int i = d + 1; i < x.rank(); ++i) inner *= x.shape()[i];
  const int64_t len = x.shape()[d];
  const double scale = average ? 1.0 / static_cast<double>(len) : 1.0;
  Shape os = x.shape();
  if (keepdim)
    os[d] = 1;
  else
    os.erase(os.begin() + d);
  Tensor y = Tensor::empty(os, x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::reduce_sum<T>(x.value().data<T>(), y.data<T>(), outer, len, inner, scale);
  });
  return make_result(kind, y, {x}, ValueReads::none(), [=](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* gx = detail::input_grad(n, 0))
        kernels::reduce_sum_backward<T>(n.grad.data<T>(), gx->data<T>(), outer, len, inner, scale);
    });
  });
}

void check_pool_args(const Var& x, const std::vector<int32_t>& lengths, const char* op) {
  if (x.rank() != 3) throw ShapeError(std::string(op) + ": expects [B, N, D], got " + to_string(x.shape()));
  if (static_cast<int64_t>(lengths.size()) != x.size(0))
    throw ShapeError(std::string(op) + ": " + std::to_string(lengths.size()) + " lengths for a batch of " +
                     std::to_string(x.size(0)));
  for (int32_t len : lengths)
    if (len < 1 || len > x.size(1))
      throw ShapeError(std::string(op) + ": length " + std::to_string(len) + " outside 1.." +
                       std::to_string(x.size(1)));
}

}  // namespace

Var sum(const Var& x, int dim, bool keepdim) { return reduce(OpKind::sum, x, dim, keepdim, false); }
Var mean(const Var& x, int dim, bool keepdim) { return reduce(OpKind::mean, x, dim, keepdim, true); }
Var sum_all(const Var& x) { return sum(reshape(x, {x.numel()}), 0); }

Var masked_mean_pool(const Var& x, const std::vector<int32_t>& lengths) {
  check_pool_args(x, lengths, "masked_mean_pool");
  const int64_t B = x.size(0), N = x.size(1), D = x.size(2);
  Tensor y = Tensor::empty({B, D}, x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::masked_mean_forward<T>(x.value().data<T>(), lengths.data(), y.data<T>(), B, N, D);
  });
  return make_result(OpKind::masked_mean_pool, y, {x}, ValueReads::none(), [=](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* gx = detail::input_grad(n, 0))
        kernels::masked_mean_backward<T>(n.grad.data<T>(), lengths.data(), gx->data<T>(), B, N, D);
    });
  });
}

Var masked_max_pool(const Var& x, const std::vector<int32_t>& lengths) {
  check_pool_args(x, lengths, "masked_max_pool");
  const int64_t B = x.size(0), N = x.size(1), D = x.size(2);
  Tensor y = Tensor::empty({B, D}, x.dtype());
  auto argmax = std::make_shared<std::vector<int64_t>>(static_cast<size_t>(B * D));
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::masked_max_forward<T>(x.value().data<T>(), lengths.data(), y.data<T>(), argmax->data(), B, N, D);
  });
  return make_result(OpKind::masked_max_pool, y, {x}, ValueReads::none(), [=](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* gx = detail::input_grad(n, 0))
        kernels::masked_max_backward<T>(n.grad.data<T>(), argmax->data(), gx->data<T>(), B, N, D);
    });
  });
}

}  // namespace rotor

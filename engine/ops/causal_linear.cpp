// Causal linear attention's running sums (kernels in engine/kernels/causal_linear.cpp).
#include "engine/kernels/causal_linear.h"
#include "engine/ops.h"
#include "engine/ops/op_util.h"

namespace rotor {
namespace {

kernels::CausalLinearShape check_causal_linear_inputs(const Var& q, const Var& k, const Var& v) {
  const char* op = "causal_linear_attention";
  detail::check_rank_at_least(q, 2, op, "q");
  detail::check_same_dtype(q, k, op);
  detail::check_same_dtype(q, v, op);
  Shape leading = q.shape();
  leading.pop_back();
  Shape v_leading = v.shape();
  if (!v_leading.empty()) v_leading.pop_back();
  if (k.shape() != q.shape() || v.rank() != q.rank() || v_leading != leading)
    throw ShapeError(std::string(op) + ": q, k must be [..., N, d] and v [..., N, e] with the same leading dims, got " +
                     to_string(q.shape()) + ", " + to_string(k.shape()) + ", " + to_string(v.shape()));
  kernels::CausalLinearShape s;
  s.N = q.size(-2);
  s.d = q.size(-1);
  s.e = v.size(-1);
  leading.pop_back();
  s.G = numel(leading);
  return s;
}

}  // namespace

Var causal_linear_attention(const Var& q, const Var& k, const Var& v) {
  const kernels::CausalLinearShape s = check_causal_linear_inputs(q, k, v);
  Shape out_shape = q.shape();
  out_shape.back() = s.e;
  Tensor out = Tensor::empty(out_shape, q.dtype());
  const Tensor qv = q.value(), kv = k.value(), vv = v.value();
  dispatch(q.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::causal_linear_forward<T>(s, qv.data<T>(), kv.data<T>(), vv.data<T>(), out.data<T>());
  });
  // The backward reads q, k, v from the closure's own tensors.
  return make_result(OpKind::causal_linear_attention, out, {q, k, v}, ValueReads::none(), [=](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      auto grad = [&](size_t i) -> T* {
        Tensor* g = detail::input_grad(n, i);
        return g ? g->data<T>() : nullptr;
      };
      kernels::causal_linear_backward<T>(s, qv.data<T>(), kv.data<T>(), vv.data<T>(), n.grad.data<T>(), grad(0),
                                         grad(1), grad(2));
    });
  });
}

}  // namespace rotor

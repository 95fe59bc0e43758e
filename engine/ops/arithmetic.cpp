// Broadcast arithmetic and scalar ops.
#include "engine/kernels/elementwise.h"
#include "engine/ops.h"
#include "engine/ops/op_util.h"

namespace rotor {
namespace {

using kernels::Binary;
using kernels::Unary;

OpKind kind_of(Binary op) {
  switch (op) {
    case Binary::add:
      return OpKind::add;
    case Binary::sub:
      return OpKind::sub;
    case Binary::mul:
      return OpKind::mul;
    case Binary::div:
      return OpKind::div;
  }
  return OpKind::add;
}

// What each binary op's backward reads: sums read no values, products read the operands.
ValueReads binary_reads(Binary op) {
  switch (op) {
    case Binary::add:
    case Binary::sub:
      return ValueReads::none();
    case Binary::mul:
      return ValueReads::only_inputs({0, 1});
    case Binary::div:
      return {ValueReads::only_inputs({1}).inputs, true};  // dy / b and -dy * y / b
  }
  return {};
}

// out = a (op) b as a new tensor of the broadcast shape.
template <class T>
Tensor apply(Binary op, const Tensor& a, const Tensor& b, const Shape& out_shape) {
  Tensor out = Tensor::empty(out_shape, a.dtype());
  kernels::binary_forward<T>(op, a.data<T>(), a.shape(), b.data<T>(), b.shape(), out.data<T>(), out_shape);
  return out;
}

Var binary(Binary op, const Var& a, const Var& b) {
  const char* name = op_name(kind_of(op)).data();
  detail::check_same_dtype(a, b, name);
  const Shape os = broadcast_shapes(a.shape(), b.shape(), name);
  Tensor out = dispatch(a.dtype(), [&](auto tag) { return apply<decltype(tag)>(op, a.value(), b.value(), os); });
  return make_result(kind_of(op), out, {a, b}, binary_reads(op), [op](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const Tensor& av = n.parents[0]->value;
      const Tensor& bv = n.parents[1]->value;
      const Tensor& g = n.grad;
      const Shape& os = n.value.shape();
      // Each input's gradient is a full-size tensor folded onto its shape.
      auto fold = [&](size_t i, const Tensor& full) {
        if (Tensor* acc = detail::input_grad(n, i))
          kernels::sum_to_shape<T>(full.data<T>(), os, acc->data<T>(), n.parents[i]->value.shape());
      };
      const bool need_a = n.parents[0]->requires_grad, need_b = n.parents[1]->requires_grad;
      switch (op) {
        case Binary::add:
          fold(0, g);
          fold(1, g);
          break;
        case Binary::sub:
          fold(0, g);
          if (need_b) {
            Tensor ng = Tensor::empty(os, g.dtype());
            kernels::unary_forward<T>(Unary::neg, g.data<T>(), ng.data<T>(), ng.numel());
            fold(1, ng);
          }
          break;
        case Binary::mul:
          if (need_a) fold(0, apply<T>(Binary::mul, g, bv, os));  // dy * b
          if (need_b) fold(1, apply<T>(Binary::mul, g, av, os));  // dy * a
          break;
        case Binary::div:
          if (need_a) fold(0, apply<T>(Binary::div, g, bv, os));  // dy / b
          if (need_b) {                                           // -dy * y / b
            Tensor t = apply<T>(Binary::div, apply<T>(Binary::mul, g, n.value, os), bv, os);
            kernels::unary_forward<T>(Unary::neg, t.data<T>(), t.data<T>(), t.numel());
            fold(1, t);
          }
          break;
      }
    });
  });
}

// y = f(x) for the elementwise math functions; backward via unary_backward.
Var unary(OpKind kind, Unary f, const Var& x) {
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::unary_forward<T>(f, x.value().data<T>(), y.data<T>(), y.numel());
  });
  return make_result(kind, y, {x}, ValueReads::all(), [f](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* gx = detail::input_grad(n, 0))
        kernels::unary_backward<T>(f, n.parents[0]->value.data<T>(), n.value.data<T>(), n.grad.data<T>(), gx->data<T>(),
                                   n.value.numel());
    });
  });
}

// y = x * scale + shift
Var affine(OpKind kind, const Var& x, double scale, double shift) {
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::affine_scalar<T>(x.value().data<T>(), y.data<T>(), y.numel(), scale, shift);
  });
  return make_result(kind, y, {x}, ValueReads::none(), [scale](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* gx = detail::input_grad(n, 0))
        kernels::axpy<T>(n.grad.data<T>(), gx->data<T>(), n.value.numel(), scale);
    });
  });
}

}  // namespace

Var add(const Var& a, const Var& b) { return binary(Binary::add, a, b); }
Var sub(const Var& a, const Var& b) { return binary(Binary::sub, a, b); }
Var mul(const Var& a, const Var& b) { return binary(Binary::mul, a, b); }
Var div(const Var& a, const Var& b) { return binary(Binary::div, a, b); }

Var add_scalar(const Var& x, double s) { return affine(OpKind::add_scalar, x, 1.0, s); }
Var mul_scalar(const Var& x, double s) { return affine(OpKind::mul_scalar, x, s, 0.0); }

Var pow_scalar(const Var& x, double p) {
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::pow_scalar_forward<T>(x.value().data<T>(), y.data<T>(), y.numel(), p);
  });
  return make_result(OpKind::pow_scalar, y, {x}, ValueReads::only_inputs({0}), [p](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* gx = detail::input_grad(n, 0))
        kernels::pow_scalar_backward<T>(n.parents[0]->value.data<T>(), n.grad.data<T>(), gx->data<T>(), n.value.numel(),
                                        p);
    });
  });
}

Var neg(const Var& x) { return unary(OpKind::neg, Unary::neg, x); }
Var exp(const Var& x) { return unary(OpKind::exp, Unary::exp, x); }
Var log(const Var& x) { return unary(OpKind::log, Unary::log, x); }
Var sqrt(const Var& x) { return unary(OpKind::sqrt, Unary::sqrt, x); }

// Activations share the unary machinery.
Var relu(const Var& x) { return unary(OpKind::relu, Unary::relu, x); }
Var elu(const Var& x) { return unary(OpKind::elu, Unary::elu, x); }
Var tanh(const Var& x) { return unary(OpKind::tanh, Unary::tanh, x); }
Var gelu(const Var& x, GeluForm form) {
  return unary(OpKind::gelu, form == GeluForm::erf ? Unary::gelu_erf : Unary::gelu_tanh, x);
}

}  // namespace rotor

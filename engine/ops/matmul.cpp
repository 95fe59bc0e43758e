// matmul (batched, with transposes), linear and activated_linear.
#include <optional>
#include <string>

#include "engine/kernels/elementwise.h"
#include "engine/ops.h"
#include "engine/ops/op_util.h"
#include "engine/ops/product.h"
#include "engine/parallel.h"

namespace rotor {

using detail::batched_product;
using detail::product;
using detail::product_precision;

namespace {

// The product's sizes: op(a) [batch.., M, K] times op(b) [batch.., K, N] (or a shared [K, N]).
struct MatmulDims {
  int64_t M, K, N, batch;
  bool shared_b;
  Shape out;
};

MatmulDims matmul_dims(const Var& a, const Var& b, bool ta, bool tb) {
  detail::check_rank_at_least(a, 2, "matmul", "a");
  detail::check_rank_at_least(b, 2, "matmul", "b");
  detail::check_same_dtype(a, b, "matmul");
  const int64_t M = ta ? a.size(-1) : a.size(-2), K = ta ? a.size(-2) : a.size(-1);
  const int64_t Kb = tb ? b.size(-1) : b.size(-2), N = tb ? b.size(-2) : b.size(-1);
  const Shape batch_shape(a.shape().begin(), a.shape().end() - 2);
  const bool shared_b = b.rank() == 2;
  if (K != Kb || (!shared_b && Shape(b.shape().begin(), b.shape().end() - 2) != batch_shape))
    throw ShapeError("matmul: cannot multiply " + to_string(a.shape()) + (ta ? "^T" : "") + " by " +
                     to_string(b.shape()) + (tb ? "^T" : ""));
  Shape out = batch_shape;
  out.push_back(M);
  out.push_back(N);
  return {M, K, N, numel(batch_shape), shared_b, out};
}

}  // namespace

Var matmul(const Var& a, const Var& b, bool ta, bool tb) {
  const MatmulDims d = matmul_dims(a, b, ta, tb);
  const int64_t M = d.M, K = d.K, N = d.N, batch = d.batch;
  const bool shared_b = d.shared_b;
  const Precision p = product_precision(a.dtype());
  Tensor out = Tensor::empty(d.out, a.dtype());
  dispatch(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* A = a.value().data<T>();
    const T* B = b.value().data<T>();
    if (shared_b && !ta)  // fold the batch into the rows: one big product
      product<T>(p, false, tb, batch * M, N, K, A, B, T(0), out.data<T>());
    else
      batched_product<T>(p, ta, tb, batch, M, N, K, A, M * K, B, shared_b ? 0 : K * N, T(0), out.data<T>(), M * N);
  });
  return make_result(OpKind::matmul, out, {a, b}, ValueReads::only_inputs({0, 1}), [=](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* A = n.parents[0]->value.data<T>();
      const T* B = n.parents[1]->value.data<T>();
      const T* dC = n.grad.data<T>();
      const int64_t sb = shared_b ? 0 : K * N;
      if (Tensor* ga = detail::input_grad(n, 0)) {
        T* dA = ga->data<T>();
        if (!ta && shared_b)  // dA = dC op(B)^T
          product<T>(p, false, !tb, batch * M, K, N, dC, B, T(1), dA);
        else if (!ta)
          batched_product<T>(p, false, !tb, batch, M, K, N, dC, M * N, B, sb, T(1), dA, M * K);
        else  // dA [K, M] = op(B) dC^T
          batched_product<T>(p, tb, true, batch, K, M, N, B, sb, dC, M * N, T(1), dA, M * K);
      }
      if (Tensor* gb = detail::input_grad(n, 1)) {
        T* dB = gb->data<T>();
        if (!tb) {  // dB [K, N] = op(A)^T dC
          if (shared_b && !ta)
            product<T>(p, true, false, K, N, batch * M, A, dC, T(1), dB);
          else
            batched_product<T>(p, !ta, false, batch, K, N, M, A, M * K, dC, M * N, T(1), dB, sb);
        } else {  // dB [N, K] = dC^T op(A)
          if (shared_b && !ta)
            product<T>(p, true, false, N, K, batch * M, dC, A, T(1), dB);
          else
            batched_product<T>(p, true, ta, batch, N, K, M, dC, M * N, A, M * K, T(1), dB, sb);
        }
      }
    });
  });
}

namespace {

kernels::Unary unary_of(HiddenActivation f) {
  switch (f) {
    case HiddenActivation::relu:
      return kernels::Unary::relu;
    case HiddenActivation::gelu_erf:
      return kernels::Unary::gelu_erf;
    case HiddenActivation::gelu_tanh:
      return kernels::Unary::gelu_tanh;
  }
  return kernels::Unary::relu;
}

// The product's input: x itself, or f(x) made anew (the forward's and the backward's are the same bits).
Tensor product_input(const Tensor& x, const std::optional<kernels::Unary>& f) {
  if (!f) return x;
  Tensor h = Tensor::empty(x.shape(), x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::unary_forward<T>(*f, x.data<T>(), h.data<T>(), h.numel());
  });
  return h;
}

// x weight^T + bias, or f(x) weight^T + bias keeping only x for the backward.
Var linear_of(OpKind kind, const Var& x, std::optional<kernels::Unary> f, const Var& weight, const Var& bias) {
  const char* name = op_name(kind).data();
  detail::check_rank_at_least(x, 1, name, "x");
  detail::check_same_dtype(x, weight, name);
  if (weight.rank() != 2 || weight.size(1) != x.size(-1))
    throw ShapeError(std::string(name) + ": weight " + to_string(weight.shape()) + " does not fit input " +
                     to_string(x.shape()) + " (expected [out, " + std::to_string(x.size(-1)) + "])");
  const int64_t in = weight.size(1), outf = weight.size(0), rows = x.numel() / in;
  if (bias.defined() && (bias.rank() != 1 || bias.size(0) != outf))
    throw ShapeError(std::string(name) + ": bias " + to_string(bias.shape()) + " does not match " +
                     std::to_string(outf) + " outputs");
  Shape os = x.shape();
  os.back() = outf;
  Tensor out = Tensor::empty(os, x.dtype());
  const Precision p = product_precision(x.dtype());
  dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* y = out.data<T>();
    product<T>(p, false, true, rows, outf, in, product_input(x.value(), f).data<T>(), weight.value().data<T>(), T(0),
               y);
    if (bias.defined()) {
      const T* bb = bias.value().data<T>();
      parallel_for(rows, std::max<int64_t>(1, kElementwiseGrain / outf), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t j = 0; j < outf; ++j) y[r * outf + j] += bb[j];
      });
    }
  });
  std::vector<Var> inputs{x, weight};
  if (bias.defined()) inputs.push_back(bias);
  return make_result(kind, out, inputs, ValueReads::only_inputs({0, 1}), [=](Node& n) {
    dispatch(n.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* dy = n.grad.data<T>();
      const T* W = n.parents[1]->value.data<T>();
      const Tensor& xv = n.parents[0]->value;
      const Tensor input = product_input(xv, f);
      if (Tensor* gx = detail::input_grad(n, 0)) {
        if (!f) {  // dx = dy W
          product<T>(p, false, false, rows, in, outf, dy, W, T(1), gx->data<T>());
        } else {  // dh = dy W, then dx = f'(x) dh: as the two ops would, into a zeroed gradient
          Tensor dh = Tensor::zeros(xv.shape(), xv.dtype());
          product<T>(p, false, false, rows, in, outf, dy, W, T(1), dh.data<T>());
          kernels::unary_backward<T>(*f, xv.data<T>(), input.data<T>(), dh.data<T>(), gx->data<T>(), xv.numel());
        }
      }
      if (Tensor* gw = detail::input_grad(n, 1))  // dW = dy^T input
        product<T>(p, true, false, outf, in, rows, dy, input.data<T>(), T(1), gw->data<T>());
      if (n.parents.size() > 2)
        if (Tensor* gb = detail::input_grad(n, 2))  // db = column sums of dy
          kernels::sum_to_shape<T>(dy, {rows, outf}, gb->data<T>(), {outf});
    });
  });
}

}  // namespace

Var linear(const Var& x, const Var& weight, const Var& bias) {
  return linear_of(OpKind::linear, x, std::nullopt, weight, bias);
}

Var activated_linear(const Var& x, HiddenActivation f, const Var& weight, const Var& bias) {
  return linear_of(OpKind::activated_linear, x, unary_of(f), weight, bias);
}

}  // namespace rotor

// A fused op with several outputs (engine make_results): one backward over all
// the outputs' gradients, run once, after every output's consumers; an output
// nothing reached counts as zeros.
#include <catch2/catch.hpp>

#include <memory>

#include "engine/ops.h"
#include "gradcheck.h"

using namespace rotor;

namespace {

// y0 = 2x, y1 = 3x as one op; its backward counts its runs and sees which outputs got a gradient.
struct TwoScales {
  int runs = 0;
  std::vector<bool> reached;

  std::vector<Var> operator()(const Var& x) {
    Tensor y0 = Tensor::empty(x.shape(), x.dtype()), y1 = Tensor::empty(x.shape(), x.dtype());
    for (int64_t i = 0; i < x.numel(); ++i) {
      y0.data<double>()[i] = 2.0 * x.value().data<double>()[i];
      y1.data<double>()[i] = 3.0 * x.value().data<double>()[i];
    }
    return make_results(OpKind::mul_scalar, {y0, y1}, {x}, ValueReads::none(),
                        [this](Node& hub, const std::vector<Tensor>& grads) {
                          ++runs;
                          reached = {grads[0].defined(), grads[1].defined()};
                          double* gx = hub.parents[0]->grad_buffer().data<double>();
                          for (size_t k = 0; k < grads.size(); ++k)
                            if (grads[k].defined())
                              for (int64_t i = 0; i < grads[k].numel(); ++i)
                                gx[i] += (k == 0 ? 2.0 : 3.0) * grads[k].data<double>()[i];
                        });
  }
};

}  // namespace

TEST_CASE("a multi-output op's backward runs once with every output's gradient") {
  Var x(test::randn({3, 4}, 1), true);
  TwoScales op;
  std::vector<Var> y = op(x);
  REQUIRE(y.size() == 2);
  CHECK(y[1].value().at(5) == 3.0 * x.value().at(5));
  // L = sum(y0 * y0) + sum(y1): dL/dx = 2 * 2 * y0 + 3
  backward(add(sum_all(mul(y[0], y[0])), sum_all(y[1])));
  CHECK(op.runs == 1);
  CHECK(op.reached == std::vector<bool>{true, true});
  for (int64_t i = 0; i < x.numel(); ++i) CHECK(x.grad().at(i) == Approx(4.0 * y[0].value().at(i) + 3.0));
}

TEST_CASE("an output no gradient reaches is reported undefined, and the others still flow") {
  Var x(test::randn({2, 5}, 2), true);
  TwoScales op;
  std::vector<Var> y = op(x);
  backward(sum_all(y[1]));
  CHECK(op.runs == 1);
  CHECK(op.reached == std::vector<bool>{false, true});
  for (int64_t i = 0; i < x.numel(); ++i) CHECK(x.grad().at(i) == 3.0);
}

TEST_CASE("without a graph a multi-output op records nothing") {
  Var x(test::randn({2, 2}, 3), true);
  TwoScales op;
  NoGradGuard no_graph;
  std::vector<Var> y = op(x);
  CHECK_FALSE(y[0].requires_grad());
  CHECK(y[0].node()->parents.empty());
}

// KERPLE, logarithmic variant (Chi et al. 2022, arXiv 2205.09921): the logit
// of query i and key j gets b_h(i, j) = -r1_h log(1 + r2_h |i - j|), with
// r1, r2 > 0 learned per head. As in the authors' code (chijames/KERPLE,
// ParallelKerpleLog, one module handed to every layer), the 2H scalars are
// shared by all layers, join the logits after the 1/sqrt(d) scaling, start at
// r1 ~ U(0, 2) and r2 ~ U(0, 1), and are kept >= 0.01 by projection (their code
// clamps the stored values before every forward; we clamp after initialisation
// and after every optimizer step, which is the same sequence of values). The
// paper trains without weight decay, so these take none.
//
// Encoder adaptation: the paper is causal and only ever sees keys at or
// before the query; here the kernel acts on |i - j|, symmetric in the two
// directions, so the bias alone cannot tell left from right. With causal
// attention (ForwardContext::causal) only keys j <= i are read, where |i - j| =
// i - j: exactly the paper's decoder bias, with no separate causal form.
#include <cstdlib>

#include "models/position_encoding.h"

namespace rotor {

namespace {

constexpr double kFloor = 1e-2;  // KERPLE's eps: the least value of r1 and r2

// [1, 2N-1] constant |i - j| for offset k = (i - j) + (N - 1).
Var distances(int64_t length, DType dtype) {
  std::vector<double> d(static_cast<size_t>(2 * length - 1));
  for (int64_t k = 0; k < 2 * length - 1; ++k) d[k] = static_cast<double>(std::llabs(k - (length - 1)));
  return Var(Tensor::from_doubles({1, 2 * length - 1}, dtype, d));
}

class KerpleEncoding : public PositionEncoding {
 public:
  KerpleEncoding(ParameterStore& store, int64_t heads)
      : heads_(heads),
        r1_(store.declare("position.kerple.r1", {heads}, ParameterInit::uniform(0, 2), /*weight_decay=*/false)),
        r2_(store.declare("position.kerple.r2", {heads}, ParameterInit::uniform(0, 1), /*weight_decay=*/false)) {}

  // Autograd ops all the way, so r1 and r2 get gradients through either attention path. Causal: keys
  // j <= i get -r1 log(1 + r2 (i - j)), the paper's own form, so the table is the same.
  Var relative_bias(const ParameterStore& store, int64_t, int64_t length, bool /*causal*/) const override {
    const Var r1 = reshape(store.var(r1_), {heads_, 1});
    const Var r2 = reshape(store.var(r2_), {heads_, 1});
    return neg(mul(r1, log(add_scalar(mul(r2, distances(length, store.dtype())), 1.0))));  // [H, 2N-1]
  }

  // The store draws U(0, 2) and U(0, 1); the start is their projection.
  void initialize(ParameterStore& store, uint64_t) const override { constrain(store); }

  void constrain(ParameterStore& store) const override {
    clamp_parameter_below(store, r1_, kFloor);
    clamp_parameter_below(store, r2_, kFloor);
  }

 private:
  int64_t heads_;
  ParameterId r1_, r2_;
};

}  // namespace

PositionEncodingSpec kerple_encoding_spec() {
  PositionEncodingSpec s;
  s.name = "kerple";
  s.validate = [](const ModelConfig&) {};
  s.make = [](ParameterStore& store, const ModelConfig& c) { return std::make_unique<KerpleEncoding>(store, c.heads); };
  s.options = randomized_position_options();
  s.needs_logits = true;
  s.reversal_symmetric = true;
  return s;
}

}  // namespace rotor

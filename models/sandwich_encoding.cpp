// Sandwich (Chi, Fan, Rudnicky and Ramadge 2023, "Dissecting Transformer Length
// Extrapolation via the Lens of Receptive Field Analysis", ACL 2023,
// arXiv 2212.10356): the logit of query m and key n gets the inner product of
// their sinusoidal position embeddings of d' dims (Vaswani's, base 10000),
//   p_m . p_n = sum_{i=1}^{d'/2} cos((m - n) / 10000^(2i/d')),
// a function of m - n alone that decays roughly logarithmically with distance
// (the paper's point: KERPLE's and T5's learnt shape, without parameters). As
// in the paper and NVIDIA NeMo's implementation (sandwich_pos_bias, NeMo PR
// #6666), d'/2 is subtracted, so the bias is 0 at m = n and negative
// elsewhere, and head h = 1..H takes it divided by 8h/H, ALiBi's range of
// slopes:
//   b_h(m, n) = (p_m . p_n - d'/2) * H / (8h).
// (NeMo's code as published sums the angles (m - n)/10000^(2i/d') without the
// cosine and from i = 1 to d'/2 - 1; we follow the paper's inner product.)
// d' is model.position.sandwich_dims, d_model when 0 (as NeMo, which uses the
// hidden size). The angles and the sum are in double.
//
// cos is even, so the bias is symmetric in an encoder: a sequence and its
// reverse get the same attention, mirrored (reversal_symmetric, like ALiBi).
// The paper is causal; keys j <= i get exactly its bias, so the decoder form is
// the same table. A function of the offset, it reaches the fused attention as
// the [H, 2N-1] table ALiBi and KERPLE give (never N x N).
#include <cmath>
#include <cstdlib>

#include "models/position_encoding.h"

namespace rotor {
namespace {

const char* const kDims = "sandwich_dims";

int64_t sandwich_dims(const ModelConfig& c) {
  const int64_t d = c.position.integer(kDims);
  return d == 0 ? c.d_model : d;
}

class SandwichEncoding : public PositionEncoding {
 public:
  SandwichEncoding(int64_t heads, int64_t dims) : heads_(heads), dims_(dims) {}

  Var relative_bias(const ParameterStore& store, int64_t, int64_t length, bool /*causal*/) const override {
    const int64_t offsets = 2 * length - 1;
    std::vector<double> product(static_cast<size_t>(offsets));  // p_m . p_n - d'/2 at m - n = k - (N - 1)
    for (int64_t k = 0; k < offsets; ++k) {
      const auto distance = static_cast<double>(std::llabs(k - (length - 1)));
      double sum = 0;
      for (int64_t i = 1; i <= dims_ / 2; ++i)
        sum += std::cos(distance / std::pow(10000.0, 2.0 * static_cast<double>(i) / static_cast<double>(dims_)));
      product[k] = sum - static_cast<double>(dims_ / 2);
    }
    std::vector<double> bias(static_cast<size_t>(heads_ * offsets));
    for (int64_t h = 0; h < heads_; ++h) {
      const double scale = static_cast<double>(heads_) / (8.0 * static_cast<double>(h + 1));
      for (int64_t k = 0; k < offsets; ++k) bias[h * offsets + k] = product[k] * scale;
    }
    return Var(Tensor::from_doubles({heads_, offsets}, store.dtype(), bias));
  }

 private:
  int64_t heads_, dims_;
};

void validate_sandwich(const ModelConfig& c) {
  const int64_t d = c.position.integer(kDims);
  if (d % 2 != 0)
    throw ModelConfigError(
        "model.position." + std::string(kDims) +
        ": the sinusoidal embeddings pair sin and cos, so an even number of dims (0: d_model), got " +
        std::to_string(d));
  if (d == 0 && c.d_model % 2 != 0)
    throw ModelConfigError("model.position." + std::string(kDims) + ": 0 takes d_model = " + std::to_string(c.d_model) +
                           ", which is odd; give an even number of dims");
}

}  // namespace

PositionEncodingSpec sandwich_encoding_spec() {
  PositionEncodingSpec s;
  s.name = "sandwich";
  s.validate = validate_sandwich;
  s.make = [](ParameterStore&, const ModelConfig& c) {
    return std::make_unique<SandwichEncoding>(c.heads, sandwich_dims(c));
  };
  s.options = with_randomized_positions(
      {PositionOption::integer(kDims, 0,
                               "d' of Sandwich: dims of the sinusoidal embeddings whose inner product is the bias "
                               "(0: d_model)")
           .at_least(0)});
  s.needs_logits = true;
  s.reversal_symmetric = true;
  return s;
}

}  // namespace rotor

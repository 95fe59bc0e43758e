// Gradient check of causal fused attention: q, k, v, the bias table and a pair
// bias's parameters, with key padding, odd lengths, the 64-wide tile boundary
// (a skipped tile above the diagonal) and dropout on.
#include "engine/ops.h"
#include "gradcheck_expect.h"
#include "pair_bias_fixture.h"

using namespace rotor;
using test::randn;
using Vars = std::vector<Var>;

namespace {

AttentionOptions causal_options(std::vector<int32_t> lengths, double dropout) {
  AttentionOptions opt;
  opt.causal = true;
  opt.scale = 0.6;
  opt.key_lengths = std::move(lengths);
  opt.dropout = dropout;
  opt.dropout_key = RandomKey{7, stream_id("causal-attention-gradcheck"), 1};
  return opt;
}

}  // namespace

GRADCHECK(OpKind::attention, "causal fused attention: q, k, v, bias table, padding, tiles, dropout") {
  const auto with_bias = [](AttentionOptions opt) {
    return [opt](const Vars& v) mutable {
      opt.bias = v[3];
      return attention(v[0], v[1], v[2], opt);
    };
  };
  CHECK_GRADIENTS(OpKind::attention, with_bias(causal_options({5, 3}, 0.3)),
                  {randn({2, 2, 5, 3}, 31), randn({2, 2, 5, 3}, 32), randn({2, 2, 5, 3}, 33), randn({2, 9}, 34)});
  CHECK_GRADIENTS(OpKind::attention, with_bias(causal_options({66}, 0.2)),
                  {randn({1, 1, 67, 2}, 35), randn({1, 1, 67, 2}, 36), randn({1, 1, 67, 2}, 37), randn({1, 133}, 38)});
  CHECK_GRADIENTS(OpKind::attention, [](const Vars& v) { return attention(v[0], v[1], v[2], causal_options({}, 0)); },
                  {randn({1, 2, 7, 4}, 39), randn({1, 2, 7, 4}, 40), randn({1, 2, 7, 4}, 41)});
}

GRADCHECK(OpKind::attention, "causal fused attention: a pair bias's parameters, padding, tiles, dropout") {
  const auto with_pair_bias = [](AttentionOptions opt) {
    return [opt](const Vars& v) mutable {
      opt.pair_bias = std::make_shared<test::WavePairBias>(v[3], v[4], v[5]);
      return attention(v[0], v[1], v[2], opt);
    };
  };
  const Tensor a = Tensor::from_doubles({1}, DType::F64, {0.9}), b = Tensor::from_doubles({1}, DType::F64, {0.4});
  CHECK_GRADIENTS(OpKind::attention, with_pair_bias(causal_options({5, 3}, 0.3)),
                  {randn({2, 2, 5, 3}, 42), randn({2, 2, 5, 3}, 43), randn({2, 2, 5, 3}, 44), randn({2}, 45), a, b});
  CHECK_GRADIENTS(OpKind::attention, with_pair_bias(causal_options({66}, 0.2)),
                  {randn({1, 1, 67, 2}, 46), randn({1, 1, 67, 2}, 47), randn({1, 1, 67, 2}, 48), randn({1}, 49), a, b});
}

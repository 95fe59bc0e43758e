// Gradient check of the fused attention op: q, k, v, the bias table and a
// pair bias's parameters, with key padding, odd lengths, a tile boundary and
// dropout on.
#include <cmath>

#include "engine/ops.h"
#include "gradcheck_expect.h"
#include "pair_bias_fixture.h"

using namespace rotor;
using test::randn;
using Vars = std::vector<Var>;

namespace {

AttentionOptions padded_dropout_options(std::vector<int32_t> lengths, double dropout) {
  AttentionOptions opt;
  opt.scale = 0.7;
  opt.key_lengths = std::move(lengths);
  opt.dropout = dropout;
  opt.dropout_key = RandomKey{5, stream_id("attention-gradcheck"), 2};
  return opt;
}

}  // namespace

GRADCHECK(OpKind::attention, "fused attention: q, k, v, bias table, padding, odd lengths, dropout") {
  const auto with_bias = [](AttentionOptions opt) {
    return [opt](const Vars& v) mutable {
      opt.bias = v[3];
      return attention(v[0], v[1], v[2], opt);
    };
  };
  // two batch rows (one padded), two heads, odd length and head size
  const AttentionOptions small = padded_dropout_options({5, 3}, 0.3);
  CHECK_GRADIENTS(OpKind::attention, with_bias(small),
                  {randn({2, 2, 5, 3}, 1), randn({2, 2, 5, 3}, 2), randn({2, 2, 5, 3}, 3), randn({2, 9}, 4)});
  // 67 positions cross the 64-wide tile boundary in both queries and keys
  const AttentionOptions tiles = padded_dropout_options({66}, 0.2);
  CHECK_GRADIENTS(OpKind::attention, with_bias(tiles),
                  {randn({1, 1, 67, 2}, 5), randn({1, 1, 67, 2}, 6), randn({1, 1, 67, 2}, 7), randn({1, 133}, 8)});
  // no bias, no padding, no dropout
  CHECK_GRADIENTS(OpKind::attention, [](const Vars& v) { return attention(v[0], v[1], v[2]); },
                  {randn({1, 2, 7, 4}, 9), randn({1, 2, 7, 4}, 10), randn({1, 2, 7, 4}, 11)});
}

GRADCHECK(OpKind::attention, "fused attention: a pair bias's parameters, padding, odd lengths, tiles, dropout") {
  // inputs q, k, v, then the pair bias's w [H], a [1], b [1]
  const auto with_pair_bias = [](AttentionOptions opt) {
    return [opt](const Vars& v) mutable {
      opt.pair_bias = std::make_shared<test::WavePairBias>(v[3], v[4], v[5]);
      return attention(v[0], v[1], v[2], opt);
    };
  };
  const Tensor a = Tensor::from_doubles({1}, DType::F64, {0.9}), b = Tensor::from_doubles({1}, DType::F64, {0.4});
  CHECK_GRADIENTS(OpKind::attention, with_pair_bias(padded_dropout_options({5, 3}, 0.3)),
                  {randn({2, 2, 5, 3}, 21), randn({2, 2, 5, 3}, 22), randn({2, 2, 5, 3}, 23), randn({2}, 24), a, b});
  // 67 positions cross the 64-wide tile boundary in both queries and keys
  CHECK_GRADIENTS(OpKind::attention, with_pair_bias(padded_dropout_options({66}, 0.2)),
                  {randn({1, 1, 67, 2}, 25), randn({1, 1, 67, 2}, 26), randn({1, 1, 67, 2}, 27), randn({1}, 28), a, b});
}

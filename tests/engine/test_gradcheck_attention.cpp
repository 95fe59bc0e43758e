// Gradient check of the fused attention op: q, k, v and the bias table, with
// key padding, odd lengths, a tile boundary and dropout on.
#include <cmath>

#include "engine/ops.h"
#include "gradcheck_expect.h"

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

GRADCHECK(OpKind::attention, "fused attention: q, k, v, bias table; padding, odd lengths, dropout") {
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

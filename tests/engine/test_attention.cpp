// The fused attention op against the composed engine ops (forward and every
// gradient, the offset bias's and the pair bias's parameters' included), its
// thread-count independence, and its no-NaN masked rows.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "attention_cases.h"
#include "engine/ops.h"
#include "gradcheck.h"
#include "optim_fixtures.h"
#include "pair_bias_fixture.h"

using namespace rotor;
using Vars = std::vector<Var>;
using test::AttentionFn;
using test::Case;
using test::value_and_grads;

namespace {

std::vector<Case> comparison_cases() {
  std::vector<Case> cases;
  for (int64_t N : {1, 7, 65, 130})
    for (bool bias : {false, true})
      for (double p : {0.0, 0.2}) {
        const int32_t n = static_cast<int32_t>(N);
        cases.push_back({2, 2, N, 20, {n, std::max(1, n / 2 + 1)}, bias, p});
      }
  cases.push_back({2, 3, 70, 16, {}, true, 0.1});       // no padding, full 16-wide vectors
  cases.push_back({3, 2, 9, 5, {0, 9, 4}, true, 0.3});  // a batch row with no valid key
  cases.push_back({1, 1, 129, 64, {100}, true, 0.5});   // several key tiles, the bench's head size
  for (int64_t N : {7, 65, 130})                        // the pair bias: alone and with the offset bias
    for (bool bias : {false, true}) {
      const int32_t n = static_cast<int32_t>(N);
      cases.push_back({2, 2, N, 20, {n, std::max(1, n / 2 + 1)}, bias, 0.2, true});
    }
  cases.push_back({3, 2, 9, 5, {0, 9, 4}, false, 0.0, true});  // a batch row with no valid key
  return cases;
}

}  // namespace

TEST_CASE("fused attention equals the composed ops in float64 (forward and every gradient)") {
  for (const Case& c : comparison_cases()) test::require_fused_matches_composed(c, DType::F64, 1e-10);
}

TEST_CASE("fused attention equals the composed ops in float32 (forward and every gradient)") {
  for (const Case& c : comparison_cases()) test::require_fused_matches_composed(c, DType::F32, 1e-5);
}

TEST_CASE("fused attention with the pair bias tile by tile equals the composed ops") {
  test::require_pair_tiles_match_composed(comparison_cases());
}

// The table changes where the pair bias is evaluated, not its values: the output and the
// gradients of q, k, v and the offset bias keep their bits; the pair bias's own gradient
// sums dS over the batch before the bias's chain rule, so it moves by rounding only.
TEST_CASE("the pair bias's batch table gives the tile path's bits, but its own gradient's rounding") {
  for (const bool causal : {false, true}) {
    const Case c{3, 2, 130, 20, {130, 66, 1}, true, 0.2, true, causal};
    INFO(test::describe(c));
    const auto table = value_and_grads(attention, c, DType::F64);
    const auto tiles = value_and_grads(test::attention_without_pair_table, c, DType::F64);
    REQUIRE(table.size() == 8);
    for (size_t i = 0; i < 5; ++i) CHECK(test::same_bits(table[i], tiles[i]));
    for (size_t i = 5; i < 8; ++i) CHECK(test::max_relative_error(table[i], tiles[i]) < 1e-13);
  }
}

TEST_CASE("fused attention gives the same bits on one and two threads") {
  const Case c{2, 3, 150, 24, {150, 77}, true, 0.1, true};
  for (const AttentionFn& f : {AttentionFn(attention), AttentionFn(test::attention_without_pair_table)}) {
    std::vector<Tensor> one, two;
    {
      test::ThreadCountGuard threads(1);
      one = value_and_grads(f, c, DType::F32);
    }
    {
      test::ThreadCountGuard threads(2);
      two = value_and_grads(f, c, DType::F32);
    }
    REQUIRE(one.size() == 8);
    for (size_t i = 0; i < one.size(); ++i) {
      INFO("output " << i);
      CHECK(test::same_bits(one[i], two[i]));
    }
  }
}

TEST_CASE("fused attention: a batch row without valid keys gives zeros and zero gradients, no NaN") {
  const Case c{2, 2, 7, 4, {0, 7}, true, 0.2};
  const auto r = value_and_grads(attention, c, DType::F64);
  const int64_t per_batch = c.H * c.N * c.dh;
  for (size_t t = 0; t < 4; ++t) {  // output, dq, dk, dv: batch 0 all zero, batch 1 finite
    const std::vector<double> x = r[t].to_doubles();
    for (int64_t e = 0; e < per_batch; ++e) CHECK(x[e] == 0.0);
    for (int64_t e = per_batch; e < 2 * per_batch; ++e) CHECK(std::isfinite(x[e]));
  }
}

TEST_CASE("fused attention: a row whose bias is -inf everywhere gives zeros like the composed ops, no NaN") {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> table(2 * 3 - 1, -inf);            // head 0: every offset -inf
  for (int d = 0; d < 5; ++d) table.push_back(0.1 * d);  // head 1: finite
  AttentionOptions opt;
  opt.bias = Var(Tensor::from_doubles({2, 5}, DType::F64, table), true);
  const Shape shape{1, 2, 3, 4};
  std::vector<std::vector<Tensor>> results;
  for (const AttentionFn& f : std::vector<AttentionFn>{attention, test::composed_attention}) {
    Var q(test::randn(shape, 1), true), k(test::randn(shape, 2), true), v(test::randn(shape, 3), true);
    opt.bias = Var(opt.bias.value(), true);
    const Var out = f(q, k, v, opt);
    backward(sum_all(out * Var(test::randn(shape, 4))));
    results.push_back({out.value(), q.grad(), k.grad(), v.grad(), opt.bias.grad()});
  }
  for (size_t t = 0; t < 5; ++t) {
    INFO("tensor " << t);
    const std::vector<double> fused = results[0][t].to_doubles(), composed = results[1][t].to_doubles();
    for (size_t e = 0; e < fused.size(); ++e) {
      CHECK(std::isfinite(fused[e]));
      CHECK(fused[e] == Approx(composed[e]).margin(1e-12));
    }
    for (size_t e = 0; e < fused.size() / 2; ++e) CHECK(fused[e] == 0.0);  // head 0
  }
}

TEST_CASE("fused attention rejects inputs it cannot attend") {
  const Var q(test::randn({1, 2, 4, 3}, 1));
  AttentionOptions opt;
  opt.bias = Var(test::randn({2, 4}, 2));  // needs [2, 7]
  CHECK_THROWS_AS(attention(q, q, q, opt), ShapeError);
  opt = AttentionOptions{};
  opt.key_lengths = {5};
  CHECK_THROWS_AS(attention(q, q, q, opt), ValueError);
  opt.key_lengths = {2, 2};
  CHECK_THROWS_AS(attention(q, q, q, opt), ShapeError);
  opt = AttentionOptions{};
  opt.dropout = 1.0;
  CHECK_THROWS_AS(attention(q, q, q, opt), ValueError);
  CHECK_THROWS_AS(attention(q, Var(test::randn({1, 2, 5, 3}, 3)), q), ShapeError);
  opt = AttentionOptions{};  // a pair bias of 3 heads for 2
  opt.pair_bias = std::make_shared<test::WavePairBias>(Var(test::randn({3}, 4)), Var(test::randn({1}, 5)),
                                                       Var(test::randn({1}, 6)));
  CHECK_THROWS_AS(attention(q, q, q, opt), ShapeError);
}

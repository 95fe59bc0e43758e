// Causal fused attention (query i attends keys j <= i): against the composed
// ops with a causal mask (forward and every gradient, with padding, dropout,
// the offset bias and a pair bias), causality itself (changing position t
// never changes an output before t), thread-count independence, and the key
// tiles the kernel visits (those above the diagonal are skipped), and that no
// bias is read where j > i.
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "attention_cases.h"
#include "engine/kernels/attention_tiling.h"
#include "engine/ops.h"
#include "optim_fixtures.h"

using namespace rotor;
using test::Case;

namespace {

std::vector<Case> causal_cases() {
  std::vector<Case> cases;
  for (int64_t N : {1, 7, 64, 65, 130, 200})  // 64: one full tile; 200: four tiles, a partial diagonal one
    for (bool bias : {false, true})
      for (double p : {0.0, 0.2}) {
        const int32_t n = static_cast<int32_t>(N);
        cases.push_back({2, 2, N, 20, {n, std::max(1, n / 2 + 1)}, bias, p, false, true});
      }
  cases.push_back({2, 3, 70, 16, {}, true, 0.1, false, true});       // no padding
  cases.push_back({3, 2, 9, 5, {0, 9, 4}, true, 0.3, false, true});  // a batch row with no valid key
  for (int64_t N : {7, 65, 130})                                     // the pair bias: alone and with the offset bias
    for (bool bias : {false, true}) {
      const int32_t n = static_cast<int32_t>(N);
      cases.push_back({2, 2, N, 20, {n, std::max(1, n / 2 + 1)}, bias, 0.2, true, true});
    }
  return cases;
}

// Outputs of f before and after q, k and v change at position t (every batch row and head).
std::pair<std::vector<double>, std::vector<double>> outputs_around_change(const test::AttentionFn& f, const Case& c,
                                                                          int64_t t) {
  const Shape shape{c.B, c.H, c.N, c.dh};
  std::vector<Tensor> qkv;
  for (uint64_t s = 0; s < 3; ++s) qkv.push_back(test::randn(shape, 100 + s));
  const Var bias(test::randn({c.H, 2 * c.N - 1}, 200));
  const auto pair = std::make_shared<test::WavePairBias>(Var(test::randn({c.H}, 210)),
                                                         Var(Tensor::from_doubles({1}, DType::F64, {0.9})),
                                                         Var(Tensor::from_doubles({1}, DType::F64, {0.4})));
  const AttentionOptions opt = test::options_for(c, bias, pair);
  const std::vector<double> before = f(Var(qkv[0]), Var(qkv[1]), Var(qkv[2]), opt).value().to_doubles();
  for (Tensor& x : qkv) {
    double* d = x.data<double>();
    for (int64_t row = 0; row < c.B * c.H; ++row)
      for (int64_t e = 0; e < c.dh; ++e) d[(row * c.N + t) * c.dh + e] += 1.5;
  }
  return {before, f(Var(qkv[0]), Var(qkv[1]), Var(qkv[2]), opt).value().to_doubles()};
}

// A WavePairBias that fills entries with j > i with NaN and counts every such
// entry it is asked to fill or differentiate: a causal kernel never asks.
class PastOnlyPairBias : public test::WavePairBias {
 public:
  using WavePairBias::WavePairBias;

  void fill(const PairTile& t, double* out, int64_t ld) const override {
    WavePairBias::fill(t, out, ld);
    for (int64_t r = 0; r < t.rows; ++r)
      for (int64_t c = 0; c < t.cols; ++c)
        if (t.j0 + c > t.i0 + r) {
          out[r * ld + c] = std::numeric_limits<double>::quiet_NaN();
          ++future_entries;
        }
  }

  void accumulate_gradients(const PairTile& t, const double* dbias, int64_t ld, double* grads) const override {
    for (int64_t r = 0; r < t.rows; ++r) future_entries += std::max<int64_t>(0, t.j0 + t.cols - 1 - (t.i0 + r));
    WavePairBias::accumulate_gradients(t, dbias, ld, grads);
  }

  mutable std::atomic<int64_t> future_entries{0};  // fill runs on several threads
};

// Causal fused attention's output and gradients (q, k, v, bias, the pair bias's w, a, b) with
// `future` in the bias table's offsets i - j < 0 and in the pair bias where j > i (NaN or 0).
std::vector<Tensor> past_only_run(double future, int64_t& future_pair_entries) {
  const Case c{2, 2, 150, 8, {150, 100}, true, 0.2, true, true};
  const Shape shape{c.B, c.H, c.N, c.dh};
  std::vector<Var> in;
  for (uint64_t s = 0; s < 3; ++s) in.emplace_back(test::randn(shape, 100 + s), true);
  std::vector<double> table = test::randn({c.H, 2 * c.N - 1}, 200).to_doubles();
  for (int64_t h = 0; h < c.H; ++h)
    for (int64_t d = 0; d < c.N - 1; ++d) table[h * (2 * c.N - 1) + d] = future;  // offset d - (N - 1) < 0
  in.emplace_back(Tensor::from_doubles({c.H, 2 * c.N - 1}, DType::F64, table), true);
  in.emplace_back(test::randn({c.H}, 210), true);
  in.emplace_back(Tensor::from_doubles({1}, DType::F64, {0.9}), true);
  in.emplace_back(Tensor::from_doubles({1}, DType::F64, {0.4}), true);
  const auto pair = std::make_shared<PastOnlyPairBias>(in[4], in[5], in[6]);
  const Var out = attention(in[0], in[1], in[2], test::options_for(c, in[3], pair));
  backward(sum_all(out * Var(test::randn(shape, 300))));
  future_pair_entries = pair->future_entries;
  std::vector<Tensor> result{out.value()};
  for (const Var& x : in) result.push_back(x.grad());
  return result;
}

// Tiles (query block, key block) the forward visits, and those the backward visits.
std::pair<int64_t, int64_t> visited_tiles(const kernels::AttentionConfig& c) {
  using namespace kernels::attention_tiling;
  int64_t forward = 0, backward = 0;
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t i0 = 0; i0 < c.N; i0 += kBlock)
      forward += (key_end(c, b, i0, std::min(kBlock, c.N - i0)) + kBlock - 1) / kBlock;
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t j0 = 0; j0 < valid_keys(c, b); j0 += kBlock)
      for (int64_t i0 = first_query_block(c, j0); i0 < c.N; i0 += kBlock) ++backward;
  return {forward, backward};
}

}  // namespace

TEST_CASE("causal fused attention equals the composed ops with a causal mask in float64") {
  for (const Case& c : causal_cases()) test::require_fused_matches_composed(c, DType::F64, 1e-10);
}

TEST_CASE("causal fused attention equals the composed ops with a causal mask in float32") {
  for (const Case& c : causal_cases()) test::require_fused_matches_composed(c, DType::F32, 1e-5);
}

TEST_CASE("causal fused attention with the pair bias tile by tile equals the composed ops") {
  test::require_pair_tiles_match_composed(causal_cases());
}

TEST_CASE("causal attention: changing position t never changes an output before t, fused and composed") {
  const Case c{2, 2, 150, 8, {150, 120}, true, 0.2, true, true};
  for (const test::AttentionFn& f : std::vector<test::AttentionFn>{attention, test::composed_attention})
    for (int64_t t : {0, 1, 63, 64, 100, 149}) {
      CAPTURE(t);
      const auto [before, after] = outputs_around_change(f, c, t);
      bool changed_at_t = false;
      for (int64_t row = 0; row < c.B * c.H; ++row)
        for (int64_t i = 0; i < c.N; ++i)
          for (int64_t e = 0; e < c.dh; ++e) {
            const size_t at = static_cast<size_t>((row * c.N + i) * c.dh + e);
            if (i < t) REQUIRE(before[at] == after[at]);
            if (i == t) changed_at_t = changed_at_t || before[at] != after[at];
          }
      CHECK(changed_at_t);
    }
}

TEST_CASE("causal fused attention gives the same bits on one and two threads") {
  const Case c{2, 3, 150, 24, {150, 77}, true, 0.1, true, true};
  std::vector<Tensor> one, two;
  {
    test::ThreadCountGuard threads(1);
    one = test::value_and_grads(attention, c, DType::F32);
  }
  {
    test::ThreadCountGuard threads(2);
    two = test::value_and_grads(attention, c, DType::F32);
  }
  REQUIRE(one.size() == 8);
  for (size_t i = 0; i < one.size(); ++i) {
    INFO("output " << i);
    CHECK(test::same_bits(one[i], two[i]));
  }
}

TEST_CASE("causal fused attention never reads the bias table or the pair bias where j > i") {
  int64_t nan_entries = -1, zero_entries = -1;
  const std::vector<Tensor> with_nan = past_only_run(std::numeric_limits<double>::quiet_NaN(), nan_entries);
  const std::vector<Tensor> with_zero = past_only_run(0.0, zero_entries);
  CHECK(nan_entries == 0);
  CHECK(zero_entries == 0);
  REQUIRE(with_nan.size() == 8);
  for (size_t t = 0; t < with_nan.size(); ++t) {
    INFO("tensor " << t << " (output, dq, dk, dv, dbias, then the pair bias's dw, da, db)");
    CHECK(test::same_bits(with_nan[t], with_zero[t]));
    for (double x : with_nan[t].to_doubles()) REQUIRE(std::isfinite(x));
  }
}

TEST_CASE("causal fused attention visits only the key tiles on or below the diagonal: about half") {
  using kernels::attention_tiling::kBlock;
  kernels::AttentionConfig c;
  c.B = 1;
  c.H = 1;
  c.N = 16 * kBlock;
  const auto [forward_all, backward_all] = visited_tiles(c);
  CHECK(forward_all == 16 * 16);
  CHECK(backward_all == 16 * 16);
  c.causal = true;
  const auto [forward, backward] = visited_tiles(c);
  CHECK(forward == 16 * 17 / 2);  // (blocks + 1) / (2 blocks) of the tiles: 0.53 at 16 blocks
  CHECK(backward == 16 * 17 / 2);
  // A partial last block and padding: still only tiles with some j <= i, and all of those.
  const int32_t lengths[2] = {130, 70};
  c.B = 2;
  c.N = 150;
  c.key_lengths = lengths;
  const auto [padded_forward, padded_backward] = visited_tiles(c);
  CHECK(padded_forward == (1 + 2 + 3) + (1 + 2 + 2));  // query blocks 0, 1, 2 read key blocks up to the diagonal
  CHECK(padded_backward == (3 + 2 + 1) + (3 + 2));     // key blocks 0, 1, 2 are read from the diagonal down
}

#pragma once
// Cases of the fused attention op against the composed engine ops, shared by
// the bidirectional and the causal tests: random q, k, v (and bias, and a
// WavePairBias's parameters), the output and every gradient of
// loss = sum(out * R), compared element by element.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attention_reference.h"
#include "engine/ops.h"
#include "gradcheck.h"
#include "pair_bias_fixture.h"

namespace rotor::test {

struct Case {
  int64_t B, H, N, dh;
  std::vector<int32_t> lengths;  // empty: no padding
  bool bias;
  double dropout;
  bool pair = false;    // a position-pair bias (WavePairBias)
  bool causal = false;  // query i attends keys j <= i only
};

inline std::string describe(const Case& c) {
  std::string s = "B" + std::to_string(c.B) + " H" + std::to_string(c.H) + " N" + std::to_string(c.N) + " dh" +
                  std::to_string(c.dh) + " lengths";
  for (int32_t l : c.lengths) s += " " + std::to_string(l);
  return s + (c.bias ? " bias" : "") + (c.pair ? " pair" : "") + (c.causal ? " causal" : "") + " dropout " +
         std::to_string(c.dropout);
}

inline AttentionOptions options_for(const Case& c, const Var& bias, const std::shared_ptr<const PairBias>& pair) {
  AttentionOptions opt;
  opt.scale = 1.0 / std::sqrt(static_cast<double>(c.dh));
  opt.key_lengths = c.lengths;
  opt.bias = bias;
  opt.pair_bias = pair;
  opt.dropout = c.dropout;
  opt.dropout_key = RandomKey{11, stream_id("attention-test"), 3};
  opt.causal = c.causal;
  return opt;
}

using AttentionFn = std::function<Var(const Var&, const Var&, const Var&, const AttentionOptions&)>;

// Output, then gradients of q, k, v (and bias, and the pair bias's w, a, b) of loss = sum(out * R).
inline std::vector<Tensor> value_and_grads(const AttentionFn& f, const Case& c, DType dtype) {
  const Shape shape{c.B, c.H, c.N, c.dh};
  std::vector<Var> in;
  for (uint64_t s = 0; s < 3; ++s) in.emplace_back(randn(shape, 100 + s).to(dtype), true);
  if (c.bias) in.emplace_back(randn({c.H, 2 * c.N - 1}, 200).to(dtype), true);
  std::shared_ptr<const PairBias> pair;
  if (c.pair) {
    const size_t first = in.size();
    in.emplace_back(randn({c.H}, 210).to(dtype), true);
    in.emplace_back(Tensor::from_doubles({1}, dtype, {0.9}), true);
    in.emplace_back(Tensor::from_doubles({1}, dtype, {0.4}), true);
    pair = std::make_shared<WavePairBias>(in[first], in[first + 1], in[first + 2]);
  }
  const Var out = f(in[0], in[1], in[2], options_for(c, c.bias ? in[3] : Var(), pair));
  backward(sum_all(out * Var(randn(shape, 300).to(dtype))));
  std::vector<Tensor> result{out.value()};
  for (const Var& x : in) result.push_back(x.grad());
  return result;
}

// max over elements of |a - b| / max(1, |b|)
inline double max_relative_error(const Tensor& a, const Tensor& b) {
  const std::vector<double> x = a.to_doubles(), y = b.to_doubles();
  double worst = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = std::abs(x[i] - y[i]) / std::max(1.0, std::abs(y[i]));
    worst = std::isnan(e) ? INFINITY : std::max(worst, e);
  }
  return worst;
}

// The fused op with the pair bias evaluated tile by tile, as calls too long for its table run.
inline Var attention_without_pair_table(const Var& q, const Var& k, const Var& v, const AttentionOptions& o) {
  AttentionOptions tiles = o;
  tiles.pair_table_bytes = 0;
  return attention(q, k, v, tiles);
}

inline void require_fused_matches_composed(const Case& c, DType dtype, double tolerance,
                                           const AttentionFn& fused_attention = attention) {
  INFO(describe(c) << " " << dtype_name(dtype));
  const auto fused = value_and_grads(fused_attention, c, dtype);
  const auto composed = value_and_grads(composed_attention, c, dtype);
  REQUIRE(fused.size() == composed.size());
  for (size_t i = 0; i < fused.size(); ++i) {
    INFO("tensor " << i << " (output, dq, dk, dv, then dbias and the pair bias's dw, da, db where present)");
    REQUIRE(fused[i].shape() == composed[i].shape());
    CHECK(max_relative_error(fused[i], composed[i]) < tolerance);
  }
}

// The pair-bias cases of `cases` on the tile-by-tile path against the composed ops, float64 and float32.
inline void require_pair_tiles_match_composed(const std::vector<Case>& cases) {
  for (const Case& c : cases)
    if (c.pair) {
      require_fused_matches_composed(c, DType::F64, 1e-10, attention_without_pair_table);
      require_fused_matches_composed(c, DType::F32, 1e-5, attention_without_pair_table);
    }
}

}  // namespace rotor::test

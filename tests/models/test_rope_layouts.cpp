// The two RoPE layouts differ only by a fixed permutation of q/k feature
// indices: half pairs (i, i + r/2), interleaved pairs (2i, 2i + 1). Checked on
// the rotary op and on whole models whose q/k projection rows are permuted.
#include <catch2/catch.hpp>

#include <cmath>

#include "model_test_support.h"

using namespace rotor;
using namespace rotor::model_test;

namespace {

// Index in the interleaved layout of half-layout feature j (r rotated dims of d).
int64_t interleaved_index(int64_t j, int64_t r) {
  if (j >= r) return j;
  return j < r / 2 ? 2 * j : 2 * (j - r / 2) + 1;
}

// [rows, d] half-layout rows -> the same features in interleaved order.
std::vector<double> to_interleaved(const std::vector<double>& x, int64_t d, int64_t r) {
  std::vector<double> y(x.size());
  for (size_t k = 0; k < x.size() / d; ++k)
    for (int64_t j = 0; j < d; ++j) y[k * d + interleaved_index(j, r)] = x[k * d + j];
  return y;
}

ModelInput input_of(const std::vector<int32_t>& tokens, const std::vector<int32_t>& lengths) {
  return {tokens, lengths, static_cast<int64_t>(lengths.size()), static_cast<int64_t>(tokens.size() / lengths.size())};
}

// Sets the q and k weights and biases of every layer of `to` (interleaved
// layout) to those of `from` (half layout, config `c`) with each head's rows
// permuted into interleaved order.
void copy_qk_in_interleaved_order(ParameterStore& from, ParameterStore& to, const ModelConfig& c) {
  const int64_t dh = c.head_dim(), r = c.rotary_dims();
  for (int64_t l = 0; l < c.layers; ++l)
    for (const char* proj : {"q", "k"})
      for (const char* part : {"weight", "bias"}) {
        const std::string name = "layers." + std::to_string(l) + ".attn." + proj + "." + part;
        const Tensor src = from.value(from.id(name));
        Tensor dst = to.value(to.id(name));
        const int64_t cols = src.rank() == 2 ? src.size(1) : 1;
        const std::vector<double> s = src.to_doubles();
        std::vector<double> out(s.size());
        for (int64_t h = 0; h < c.heads; ++h)
          for (int64_t j = 0; j < dh; ++j)
            for (int64_t col = 0; col < cols; ++col)
              out[(h * dh + interleaved_index(j, r)) * cols + col] = s[(h * dh + j) * cols + col];
        dst.copy_from(Tensor::from_doubles(dst.shape(), DType::F64, out));
      }
}

}  // namespace

TEST_CASE("rope layouts: half and interleaved agree once features are permuted (op level)", "[rope][layout]") {
  const DType dtype = GENERATE(DType::F32, DType::F64);
  const double fraction = GENERATE(1.0, 0.5);
  const int64_t d = 32, T = 24;
  const RotaryEmbedding half(d, rope_position("half", fraction));
  const RotaryEmbedding inter(d, rope_position("interleaved", fraction));
  const int64_t r = half.rotary_dims();
  const std::vector<double> q = random_normal(T * d, 61, 1), k = random_normal(T * d, 61, 2);
  std::vector<int64_t> m, n;
  for (int64_t t = 0; t < T; ++t) m.push_back(t * 4111), n.push_back((T - t) * 2999);

  const std::vector<double> rq_half = rotate_rows(half, q, d, m, dtype);
  const std::vector<double> rk_half = rotate_rows(half, k, d, n, dtype);
  const std::vector<double> rq_int = rotate_rows(inter, to_interleaved(q, d, r), d, m, dtype);
  const std::vector<double> rk_int = rotate_rows(inter, to_interleaved(k, d, r), d, n, dtype);
  // Same arithmetic on the same numbers: the rotated features agree exactly.
  CHECK(to_interleaved(rq_half, d, r) == rq_int);
  CHECK(to_interleaved(rk_half, d, r) == rk_int);
  for (int64_t a = 0; a < T; ++a)
    for (int64_t b = 0; b < T; ++b)
      CHECK(dot(row(rq_half, d, a), row(rk_half, d, b)) ==
            Approx(dot(row(rq_int, d, a), row(rk_int, d, b))).margin(1e-12));
  // Without the permutation the layouts disagree: the table is not layout-neutral.
  const std::vector<double> wrong = rotate_rows(inter, q, d, m, dtype);
  double diff = 0;
  for (size_t i = 0; i < wrong.size(); ++i) diff = std::max(diff, std::abs(wrong[i] - rq_half[i]));
  CHECK(diff > 0.1);
}

TEST_CASE("rope layouts: a rope-half model equals a rope-interleaved model with permuted q/k rows",
          "[rope][layout][model]") {
  const double fraction = GENERATE(1.0, 0.5);
  ModelConfig c = tiny_config("rope-half", 20);
  c.layers = 2;
  c.position.set("fraction", fraction);
  ModelConfig ci = c;
  ci.position.set("layout", RotaryLayout::interleaved);
  EncoderClassifier half(c, DType::F64), inter(ci, DType::F64);
  half.initialize(3);
  inter.initialize(4);
  const int64_t dh = c.head_dim(), r = c.rotary_dims();
  ParameterStore& from = half.parameters();
  ParameterStore& to = inter.parameters();
  REQUIRE(from.infos().size() == to.infos().size());
  const std::vector<int32_t> tokens{3, 7, 1, 19, 4, 4, 12, 5, 9, 2, 11, 6, 0, 0};
  const std::vector<int32_t> lengths{7, 5};
  const std::vector<int32_t> labels{1, 0};

  // Copy everything by name, then permute the rows of q and k of each head.
  for (const ParameterInfo& p : from.infos()) to.value(to.id(p.name)).copy_from(from.value(from.id(p.name)));
  ForwardContext ctx0;
  const std::vector<double> unpermuted = inter.logits(input_of(tokens, lengths), ctx0).value().to_doubles();
  copy_qk_in_interleaved_order(from, to, c);

  ForwardContext ctx1, ctx2;
  const Var lh = half.logits(input_of(tokens, lengths), ctx1);
  const Var li = inter.logits(input_of(tokens, lengths), ctx2);
  const std::vector<double> a = lh.value().to_doubles(), b = li.value().to_doubles();
  double scale = 0, diff_permuted = 0, diff_unpermuted = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, std::abs(a[i]));
    diff_permuted = std::max(diff_permuted, std::abs(a[i] - b[i]));
    diff_unpermuted = std::max(diff_unpermuted, std::abs(a[i] - unpermuted[i]));
  }
  INFO("max |logit| " << scale << ", permuted diff " << diff_permuted << ", unpermuted diff " << diff_unpermuted);
  CHECK(diff_permuted <= 1e-12 * scale);
  CHECK(diff_unpermuted > 1e-6 * scale);  // the permutation is what makes them agree

  // The gradients agree too, once mapped back through the permutation.
  backward(half.loss(lh, labels));
  backward(inter.loss(li, labels));
  const std::string v0 = "layers.0.attn.v.weight", q0 = "layers.0.attn.q.bias";
  const std::vector<double> gv_h = from.grad(from.id(v0)).to_doubles(), gv_i = to.grad(to.id(v0)).to_doubles();
  for (size_t i = 0; i < gv_h.size(); ++i) CHECK(gv_h[i] == Approx(gv_i[i]).margin(1e-14));
  const std::vector<double> gq_h = from.grad(from.id(q0)).to_doubles(), gq_i = to.grad(to.id(q0)).to_doubles();
  for (int64_t h = 0; h < c.heads; ++h)
    for (int64_t j = 0; j < dh; ++j)
      CHECK(gq_h[h * dh + j] == Approx(gq_i[h * dh + interleaved_index(j, r)]).margin(1e-14));
}

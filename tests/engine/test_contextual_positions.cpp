// contextual_positions (CoPE's core): finite differences, the paper's causal code written out as
// loops, and the encoder form's mirror symmetry.
#include <cmath>
#include <limits>
#include <vector>

#include "engine/ops.h"
#include "gradcheck_expect.h"

using namespace rotor;
using test::randn;
using Vars = std::vector<Var>;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

// x with -inf at every key after its query (the paper's causal mask), [G, N, N].
Tensor causal(const Tensor& x) {
  std::vector<double> v = x.to_doubles();
  const int64_t n = x.size(-1);
  for (size_t r = 0; r < v.size() / n; ++r)
    for (int64_t j = static_cast<int64_t>(r) % n + 1; j < n; ++j) v[r * n + j] = -kInf;
  return Tensor::from_doubles(x.shape(), DType::F64, v);
}

// The paper's code (Golovneva et al. 2024, listing 1) as loops: gates = sigmoid(masked logits),
// pos = gates.flip(-1).cumsum(-1).flip(-1), clamp(max = P - 1), then ceil/floor gathers mixed by w.
// `both_sides`: the encoder form, the gates between query and key summed on either side.
std::vector<double> reference(const Tensor& x, const Tensor& z, bool both_sides) {
  const std::vector<double> xs = x.to_doubles(), zs = z.to_doubles();
  const int64_t n = x.size(-1), P = z.size(-1), rows = x.numel() / n;
  std::vector<double> out(xs.size());
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = r % n;
    for (int64_t j = 0; j < n; ++j) {
      const int64_t from = both_sides ? std::min(i, j) : j, to = both_sides ? std::max(i, j) : n - 1;
      double pos = 0;
      for (int64_t t = from; t <= to; ++t) pos += 1 / (1 + std::exp(-xs[r * n + t]));
      pos = std::min(pos, double(P - 1));
      const double lo = std::floor(pos), hi = std::ceil(pos), w = pos - lo;
      out[r * n + j] = zs[r * P + int64_t(hi)] * w + zs[r * P + int64_t(lo)] * (1 - w);
    }
  }
  return out;
}

double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

}  // namespace

GRADCHECK(OpKind::contextual_positions, "contextual positions: both sides, causal, and counts clamped at P - 1") {
  // P = 4 clamps the longer counts of these 6 keys (gates average 1/2), so the clamp's zero gradient is crossed too.
  const Tensor x = randn({2, 3, 6, 6}, 11, 2.0), z = randn({2, 3, 6, 4}, 12);
  CHECK_GRADIENTS(OpKind::contextual_positions, [](const Vars& v) { return contextual_positions(v[0], v[1]); }, {x, z});
  CHECK_GRADIENTS(OpKind::contextual_positions, [](const Vars& v) { return contextual_positions(v[0], v[1]); },
                  {causal(x), z});
  CHECK_GRADIENTS(OpKind::contextual_positions, [](const Vars& v) { return contextual_positions(v[0], v[1]); },
                  {randn({5, 5}, 13), randn({5, 9}, 14)});  // no leading dims, nothing clamped
}

TEST_CASE("contextual positions: causal rows equal the paper's flip-cumsum code, and both-sides rows the loops") {
  const Tensor x = randn({3, 2, 7, 7}, 21, 2.0), z = randn({3, 2, 7, 5}, 22);
  const Tensor masked = causal(x);
  const std::vector<double> mine = contextual_positions(Var(masked), Var(z)).value().to_doubles();
  const std::vector<double> paper = reference(masked, z, false);
  for (size_t e = 0; e < mine.size(); ++e)  // the keys after the query: the paper's code counts nothing there
    if (int64_t(e) % 7 <= int64_t(e / 7) % 7) CHECK(std::abs(mine[e] - paper[e]) < 1e-12);
  CHECK(largest_difference(contextual_positions(Var(x), Var(z)).value().to_doubles(), reference(x, z, true)) < 1e-12);
}

TEST_CASE("contextual positions: the encoder form has no direction (reversing the sequence mirrors the output)") {
  const int64_t n = 9, P = 6;
  const Tensor x = randn({n, n}, 31, 2.0), z = randn({n, P}, 32);
  std::vector<double> xs = x.to_doubles(), zs = z.to_doubles(), rx(xs.size()), rz(zs.size());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) rx[(n - 1 - i) * n + (n - 1 - j)] = xs[i * n + j];
    for (int64_t p = 0; p < P; ++p) rz[(n - 1 - i) * P + p] = zs[i * P + p];
  }
  const std::vector<double> out = contextual_positions(Var(x), Var(z)).value().to_doubles();
  const std::vector<double> mirrored = contextual_positions(Var(Tensor::from_doubles({n, n}, DType::F64, rx)),
                                                            Var(Tensor::from_doubles({n, P}, DType::F64, rz)))
                                           .value()
                                           .to_doubles();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) CHECK(out[i * n + j] == mirrored[(n - 1 - i) * n + (n - 1 - j)]);
}

TEST_CASE("contextual positions: a masked key adds no count and gets no gradient, and shapes are checked") {
  // Row 0 of a 4-key window whose keys 2 and 3 are padding: counts to keys 0 and 1 are the gates of 0..1 alone.
  const Tensor x = Tensor::from_doubles({4, 4}, DType::F64,
                                        {0, 1, -kInf, -kInf, 0, 0, -kInf, -kInf,  //
                                         0, 0, -kInf, -kInf, 0, 0, -kInf, -kInf});
  const Tensor z = Tensor::from_doubles({4, 3}, DType::F64, {0, 10, 20, 0, 10, 20, 0, 10, 20, 0, 10, 20});
  Var xv(x, true);
  const Var out = contextual_positions(xv, Var(z));
  const double g1 = 1 / (1 + std::exp(-1.0));
  CHECK(out.value().to_doubles()[1] == Approx(10 * (0.5 + g1)));  // p_01 = g_0 + g_1, z linear in p
  CHECK(out.value().to_doubles()[3] == Approx(10 * (0.5 + g1)));  // key 3: the gates of 0..3, two of them 0
  backward(sum_all(out));
  const std::vector<double> dx = xv.grad().to_doubles();
  for (int64_t r = 0; r < 4; ++r) CHECK((dx[r * 4 + 2] == 0 && dx[r * 4 + 3] == 0));
  CHECK_THROWS_AS(contextual_positions(Var(randn({4, 5}, 1)), Var(randn({4, 3}, 2))), ShapeError);
  CHECK_THROWS_AS(contextual_positions(Var(randn({4, 4}, 1)), Var(randn({3, 3}, 2))), ShapeError);
}

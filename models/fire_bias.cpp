// FIRE, functional interpolation for relative positions: S. Li, C. You, G.
// Guruganesh, J. Ainslie, S. Ontanon, M. Zaheer, S. Sanghai, Y. Yang, S. Kumar,
// S. Bhojanapalli, "Functional Interpolation for Relative Positions Improves
// Long Context Transformers", ICLR 2024, arXiv:2310.04418.
//
// The paper (causal, keys j <= i) adds to the logit of query i and key j
//   b(i, j) = f_theta( psi(i - j) / psi(max(L, i)) ),   psi(x) = log(c x + 1),
// with f_theta an MLP 1 -> 32 -> heads with ReLU (PyTorch's default Linear
// initialisation), c learned from 0.1, and L = |s| * 512 with the multiplier s
// learned from 1 (the absolute value keeps L positive); its reference code adds
// eps = 1e-6 to the denominator. Here each attention layer has its own module,
// with mlp_width, initial_c and initial_threshold as model.position options.
//
// Encoder adaptation (bidirectional; rotor's, not the paper's):
//   b_h(i, j) = f_theta( sign(i - j) psi(|i - j|) / psi(max(L, max(i, j))) )_h.
// Keys before the query get exactly the paper's bias; for a key after it the
// later of the two positions plays the query's role, so the MLP input stays in
// [-1, 1] and its sign says which side the key is on. While max(i, j) <= L the
// bias depends on i - j only; past L the distances are interpolated. Causal
// attention (ForwardContext::causal) reads only keys j <= i, where this is the
// paper's decoder bias itself: FIRE needs no separate causal form.
//
// The bias depends on i and j themselves, so it is a PairBias
// (engine/pair_bias.h): the fused attention evaluates it one tile at a time,
// the composed reference builds [H, N, N] from ops.
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "models/position_encoding.h"

namespace rotor {
namespace {

constexpr double kEps = 1e-6;  // the paper's eps on psi(max(L, .))

// One hidden unit's gradients over a row of keys (u and g padded with zeros to
// `padded`, a multiple of kLanes): kLanes running sums added in lane order, so
// the loop vectorises and the order is fixed; du[c] gets the unit's share of
// d b / d u at key c. With t = g [z > 0]: d fc2.weight = sum t z, d fc1.bias =
// w2 sum t, d fc1.weight = w2 sum t u, du = t w2 w1.
constexpr int64_t kLanes = 8;
struct UnitGradient {
  double fc1_weight = 0, fc1_bias = 0, fc2_weight = 0;
};
UnitGradient unit_gradient(double w1, double b1, double w2, const double* __restrict__ u, const double* __restrict__ g,
                           int64_t padded, double* __restrict__ du) {
  double tu[kLanes] = {}, t_sum[kLanes] = {}, tz[kLanes] = {};
  const double w21 = w2 * w1;
  for (int64_t c0 = 0; c0 < padded; c0 += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) {
      const int64_t c = c0 + l;
      const double z = w1 * u[c] + b1, t = g[c] * static_cast<double>(z > 0);
      tz[l] += t * z;
      tu[l] += t * u[c];
      t_sum[l] += t;
      du[c] += t * w21;
    }
  UnitGradient sum;
  for (int64_t l = 0; l < kLanes; ++l) {
    sum.fc1_weight += tu[l];
    sum.fc1_bias += t_sum[l];
    sum.fc2_weight += tz[l];
  }
  sum.fc1_weight *= w2;
  sum.fc1_bias *= w2;
  return sum;
}

// One FIRE module's parameters.
struct FireParameters {
  ParameterId fc1_weight, fc1_bias, fc2_weight, fc2_bias, c, threshold_scale;
};

// psi(max(L, p)) + eps and its derivatives in |c| and L, for a position p.
struct Normaliser {
  double value = 0, d_c = 0, d_threshold = 0;
};

// The FIRE bias of one layer for one forward: parameter values read once, in double.
class FireBias : public PairBias {
 public:
  FireBias(std::vector<Var> vars, double initial_threshold, Positions positions)
      : vars_(std::move(vars)), positions_(std::move(positions)) {
    fc1_weight_ = vars_[0].value().to_doubles();
    fc1_bias_ = vars_[1].value().to_doubles();
    fc2_weight_ = vars_[2].value().to_doubles();
    fc2_bias_ = vars_[3].value().to_doubles();
    const double c = vars_[4].value().to_doubles()[0], s = vars_[5].value().to_doubles()[0];
    abs_c_ = std::abs(c);
    sign_c_ = c < 0 ? -1.0 : 1.0;
    threshold_ = std::abs(s) * initial_threshold;
    d_threshold_d_s_ = (s < 0 ? -1.0 : 1.0) * initial_threshold;
  }

  int64_t heads() const override { return static_cast<int64_t>(fc2_bias_.size()); }
  std::vector<Var> parameters() const override { return vars_; }

  // Row by row, hidden unit by hidden unit, so that the inner loop runs over
  // the row's keys (vectorised); each element still sums its units in order.
  void fill(const PairTile& t, double* out, int64_t ld) const override {
    const Inputs in = inputs(t);
    const double* w2 = fc2_weight_.data() + t.head * hidden();
    std::vector<double> u(static_cast<size_t>(t.cols));
    for (int64_t r = 0; r < t.rows; ++r) {
      for (int64_t c = 0; c < t.cols; ++c) u[c] = in.u(r, c);
      double* b = out + r * ld;
      std::fill(b, b + t.cols, fc2_bias_[static_cast<size_t>(t.head)]);
      for (int64_t k = 0; k < hidden(); ++k) {
        const double w1 = fc1_weight_[k], b1 = fc1_bias_[k];
        for (int64_t c = 0; c < t.cols; ++c) b[c] += w2[k] * std::max(0.0, w1 * u[c] + b1);
      }
    }
  }

  void accumulate_gradients(const PairTile& t, const double* dbias, int64_t ld, double* grads) const override;
  Var compose(int64_t length) const override;

 private:
  // The MLP input u(i, j) over a tile, from per-offset and per-position pieces
  // (psi is taken m + n times, not m * n). Explicit positions are not a
  // function of the slot offset, so psi is then taken per element.
  struct Inputs {
    int64_t i0, j0, rows, cols;
    bool per_element;  // psi per (r, c) (explicit positions), else per slot offset
    // psi(|d|), d psi(|d|) / d|c| for d = p_i - p_j: at r * cols + c, or at r - c + cols - 1
    // for slot offsets from i0 - j0 - cols + 1
    std::vector<double> offset_psi, offset_d_c;
    std::vector<int64_t> row_position, col_position;  // of slots i0 + r and j0 + c
    std::vector<Normaliser> row, col;                 // at those positions
    double signed_psi(int64_t r, int64_t c) const { return signed_at(offset_psi, r, c); }
    double signed_psi_d_c(int64_t r, int64_t c) const { return signed_at(offset_d_c, r, c); }
    // Sign and normaliser follow the positions, not the slots: data's positions may repeat or descend.
    int64_t offset(int64_t r, int64_t c) const {
      return row_position[static_cast<size_t>(r)] - col_position[static_cast<size_t>(c)];
    }
    double signed_at(const std::vector<double>& per_offset, int64_t r, int64_t c) const {
      const int64_t d = offset(r, c);
      const double p = per_offset[static_cast<size_t>(per_element ? r * cols + c : r - c + cols - 1)];
      return d > 0 ? p : d < 0 ? -p : 0.0;
    }
    const Normaliser& normaliser(int64_t r, int64_t c) const {  // at max(p_i, p_j)
      return offset(r, c) >= 0 ? row[static_cast<size_t>(r)] : col[static_cast<size_t>(c)];
    }
    double u(int64_t r, int64_t c) const { return signed_psi(r, c) / normaliser(r, c).value; }
  };

  int64_t hidden() const { return static_cast<int64_t>(fc1_bias_.size()); }
  Normaliser normaliser(int64_t position) const;
  Inputs inputs(const PairTile& t) const;
  std::vector<double> position_constants(int64_t n, double (*f)(int64_t, int64_t)) const;

  std::vector<Var>
      vars_;  // fc1.weight [W, 1], fc1.bias [W], fc2.weight [H, W], fc2.bias [H], c [1], threshold_scale [1]
  Positions positions_;
  std::vector<double> fc1_weight_, fc1_bias_, fc2_weight_, fc2_bias_;
  double abs_c_ = 0, sign_c_ = 1, threshold_ = 0, d_threshold_d_s_ = 0;
};

Normaliser FireBias::normaliser(int64_t position) const {
  const bool below = threshold_ > static_cast<double>(position);
  const double m = below ? threshold_ : static_cast<double>(position);
  Normaliser n;
  n.value = std::log1p(abs_c_ * m) + kEps;
  n.d_c = m / (1 + abs_c_ * m);
  n.d_threshold = below ? abs_c_ / (1 + abs_c_ * m) : 0.0;
  return n;
}

FireBias::Inputs FireBias::inputs(const PairTile& t) const {
  Inputs in{t.i0, t.j0, t.rows, t.cols, !positions_.contiguous(), {}, {}, {}, {}, {}, {}};
  auto add_distance = [&](double d) {
    in.offset_psi.push_back(std::log1p(abs_c_ * d));
    in.offset_d_c.push_back(d / (1 + abs_c_ * d));
  };
  if (in.per_element) {
    for (int64_t r = 0; r < t.rows; ++r)
      for (int64_t c = 0; c < t.cols; ++c)
        add_distance(static_cast<double>(std::llabs(positions_.at(t.i0 + r) - positions_.at(t.j0 + c))));
  } else {
    for (int64_t k = 0; k < t.rows + t.cols - 1; ++k)
      add_distance(std::abs(static_cast<double>(t.i0 - t.j0 - t.cols + 1 + k)));
  }
  for (int64_t r = 0; r < t.rows; ++r) in.row_position.push_back(positions_.at(t.i0 + r));
  for (int64_t c = 0; c < t.cols; ++c) in.col_position.push_back(positions_.at(t.j0 + c));
  for (int64_t p : in.row_position) in.row.push_back(normaliser(p));
  for (int64_t p : in.col_position) in.col.push_back(normaliser(p));
  return in;
}

// Back through the MLP row by row (unit_gradient), then through
// u = sign(d) psi(|d|) / Q into |c| and L. Flat layout: fc1.weight, fc1.bias,
// fc2.weight, fc2.bias, c, threshold_scale.
void FireBias::accumulate_gradients(const PairTile& t, const double* dbias, int64_t ld, double* grads) const {
  const Inputs in = inputs(t);
  const int64_t width = hidden(), H = heads(), padded = (t.cols + kLanes - 1) / kLanes * kLanes;
  double* d_fc2_weight = grads + 2 * width + t.head * width;
  double* rest = grads + 2 * width + H * width;  // fc2.bias, c, threshold_scale
  std::vector<double> u(static_cast<size_t>(padded), 0.0), g(u.size(), 0.0), du(u.size());
  for (int64_t r = 0; r < t.rows; ++r) {
    for (int64_t c = 0; c < t.cols; ++c) {
      g[c] = dbias[r * ld + c];
      u[c] = in.u(r, c);
    }
    std::fill(du.begin(), du.end(), 0.0);
    for (int64_t k = 0; k < width; ++k) {
      const UnitGradient unit = unit_gradient(fc1_weight_[k], fc1_bias_[k], fc2_weight_[t.head * width + k], u.data(),
                                              g.data(), padded, du.data());
      grads[k] += unit.fc1_weight;
      grads[width + k] += unit.fc1_bias;
      d_fc2_weight[k] += unit.fc2_weight;
    }
    for (int64_t c = 0; c < t.cols; ++c) {
      const Normaliser& q = in.normaliser(r, c);
      const double p = in.signed_psi(r, c), dp_dc = in.signed_psi_d_c(r, c);
      rest[t.head] += g[c];
      rest[H] += sign_c_ * du[c] * (dp_dc * q.value - p * q.d_c) / (q.value * q.value);
      rest[H + 1] -= d_threshold_d_s_ * du[c] * p * q.d_threshold / (q.value * q.value);
    }
  }
}

// [n, n] constants f(p_i, p_j) of the slots' positions.
std::vector<double> FireBias::position_constants(int64_t n, double (*f)(int64_t, int64_t)) const {
  std::vector<double> v(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) v[static_cast<size_t>(i * n + j)] = f(positions_.at(i), positions_.at(j));
  return v;
}

Var FireBias::compose(int64_t n) const {
  const DType dt = vars_[0].dtype();
  auto constant = [&](double (*f)(int64_t, int64_t)) {
    return Var(Tensor::from_doubles({n, n}, dt, position_constants(n, f)));
  };
  const Var distance = constant([](int64_t i, int64_t j) { return static_cast<double>(i > j ? i - j : j - i); });
  const Var direction = constant([](int64_t i, int64_t j) { return i > j ? 1.0 : i < j ? -1.0 : 0.0; });
  const std::vector<double> later = position_constants(n, [](int64_t i, int64_t j) { return double(i > j ? i : j); });
  // max(L, max(i, j)) = L where L is larger (mask 1), else the position (a constant)
  std::vector<double> below(later.size()), position_part(later.size());
  for (size_t e = 0; e < later.size(); ++e) {
    below[e] = threshold_ > later[e] ? 1.0 : 0.0;
    position_part[e] = threshold_ > later[e] ? 0.0 : later[e];
  }
  const Var abs_c = mul(vars_[4], Var(Tensor::from_doubles({1}, dt, {sign_c_})));
  const Var threshold = mul(vars_[5], Var(Tensor::from_doubles({1}, dt, {d_threshold_d_s_})));
  const Var m = add(mul(threshold, Var(Tensor::from_doubles({n, n}, dt, below))),
                    Var(Tensor::from_doubles({n, n}, dt, position_part)));
  const Var numerator = mul(direction, log(add_scalar(mul(abs_c, distance), 1.0)));
  const Var denominator = add_scalar(log(add_scalar(mul(abs_c, m), 1.0)), kEps);
  const Var u = reshape(div(numerator, denominator), {n * n, 1});
  const Var b = linear(relu(linear(u, vars_[0], vars_[1])), vars_[2], vars_[3]);  // [n * n, H]
  return permute(reshape(b, {n, n, heads()}), {2, 0, 1});
}

// One module per layer, "layers.<i>.attn.fire.*".
class FireEncoding : public PositionEncoding {
 public:
  FireEncoding(ParameterStore& store, const ModelConfig& c)
      : width_(c.position.integer("mlp_width")),
        initial_c_(c.position.number("initial_c")),
        initial_threshold_(c.position.number("initial_threshold")) {
    for (int64_t i = 0; i < c.layers; ++i)
      modules_.push_back(declare(store, "layers." + std::to_string(i) + ".attn.fire", c.heads));
  }

  std::shared_ptr<const PairBias> pair_bias(const ParameterStore& store, int64_t layer,
                                            const Positions& positions) const override {
    const FireParameters& p = modules_[static_cast<size_t>(layer)];
    std::vector<Var> vars;
    for (ParameterId id : {p.fc1_weight, p.fc1_bias, p.fc2_weight, p.fc2_bias, p.c, p.threshold_scale})
      vars.push_back(store.var(id));
    return std::make_shared<FireBias>(std::move(vars), initial_threshold_, positions);
  }

 private:
  // nn.Linear's default initialisation, U(+-1/sqrt(fan_in)), as the paper's code; c and the
  // threshold multiplier without weight decay (decay would pull them to 0, not to their start).
  FireParameters declare(ParameterStore& store, const std::string& prefix, int64_t heads) const {
    const int64_t w = width_;
    const double bound2 = 1.0 / std::sqrt(double(w));
    const ParameterInit fc1 = ParameterInit::uniform(-1.0, 1.0), fc2 = ParameterInit::uniform(-bound2, bound2);
    FireParameters p;
    p.fc1_weight = store.declare(prefix + ".mlp.fc1.weight", {w, 1}, fc1);
    p.fc1_bias = store.declare(prefix + ".mlp.fc1.bias", {w}, fc1, false);
    p.fc2_weight = store.declare(prefix + ".mlp.fc2.weight", {heads, w}, fc2);
    p.fc2_bias = store.declare(prefix + ".mlp.fc2.bias", {heads}, fc2, false);
    p.c = store.declare(prefix + ".c", {1}, ParameterInit::constant(initial_c_), false);
    p.threshold_scale = store.declare(prefix + ".threshold_scale", {1}, ParameterInit::ones(), false);
    return p;
  }

  int64_t width_;
  double initial_c_, initial_threshold_;
  std::vector<FireParameters> modules_;
};

}  // namespace

PositionEncodingSpec fire_encoding_spec() {
  PositionEncodingSpec s;
  s.name = "fire";
  s.validate = [](const ModelConfig&) {};  // the options' ranges are all it needs
  s.make = [](ParameterStore& store, const ModelConfig& c) { return std::make_unique<FireEncoding>(store, c); };
  s.options = with_randomized_positions({
      PositionOption::integer("mlp_width", 32, "hidden units of FIRE's MLP").at_least(1),
      PositionOption::number("initial_c", 0.1, "FIRE's c at initialisation (learned), psi(x) = log(c x + 1)").above(0),
      PositionOption::number("initial_threshold", 512,
                             "FIRE's threshold L at initialisation (learned): the bias depends on i - j alone "
                             "while both positions are below it")
          .above(0),
  });
  s.needs_logits = true;
  return s;
}

}  // namespace rotor

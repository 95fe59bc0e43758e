#include "models/sinusoidal_encoding.h"

#include <cmath>
#include <mutex>
#include <vector>

#include "models/position_encoding.h"

namespace rotor {

Tensor sinusoidal_rows(const std::vector<int64_t>& positions, int64_t d, DType dtype) {
  const auto rows = static_cast<int64_t>(positions.size());
  std::vector<double> pe(static_cast<size_t>(rows * d));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < d; ++j) {
      const double angle = static_cast<double>(positions[r]) * std::pow(10000.0, -static_cast<double>(j - j % 2) / d);
      pe[r * d + j] = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
  return Tensor::from_doubles({rows, d}, dtype, pe);
}

Tensor sinusoidal_table(int64_t length, int64_t d, DType dtype) {
  return sinusoidal_rows(Positions().list(length), d, dtype);
}

PositionOption absolute_position_scale_option() {
  return PositionOption::number("scale", 1.0,
                                "RMS of the added position signal at initialisation, as a "
                                "multiple of the token embeddings' RMS (init_std, or 1 with embedding_scale sqrt_d); "
                                "sinusoidal multiplies its table, learned draws its table with that std. sqrt_d with "
                                "0.7071 is Vaswani's")
      .at_least(0);
}

namespace {

class SinusoidalEncoding : public PositionEncoding {
 public:
  // Every row of the table has RMS exactly sqrt(1/2) (d/2 pairs with sin^2 + cos^2 = 1), so this
  // multiplier gives the signal position.scale times the tokens' RMS. Vaswani's unit-RMS tokens next to
  // the bare table are embedding_scale sqrt_d with scale sqrt(1/2); the default (BERT's tokens, scale 1)
  // keeps the table from outweighing N(0, 0.02) tokens 35 to 1.
  explicit SinusoidalEncoding(const ModelConfig& c)
      : d_model_(c.d_model), multiplier_(c.position.number("scale") * c.token_rms() / std::sqrt(0.5)) {}

  Var add_to_embeddings(const ParameterStore& store, const Var& x, const Positions& positions) const override {
    const int64_t n = x.size(1);
    Tensor rows;
    if (!positions.contiguous()) {
      rows = sinusoidal_rows(positions.values, d_model_, store.dtype());
    } else {
      // One table for the longest length seen (bounded by the longest input);
      // shorter inputs use a view of its first rows.
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!table_.defined() || table_.size(0) < n) table_ = sinusoidal_table(n, d_model_, store.dtype());
      rows = table_.view(0, {n, d_model_});
    }
    return add(x, multiplier_ == 1.0 ? Var(rows) : mul_scalar(Var(rows), multiplier_));
  }

 private:
  int64_t d_model_;
  double multiplier_;
  mutable std::mutex mutex_;
  mutable Tensor table_;
};

}  // namespace

PositionEncodingSpec sinusoidal_encoding_spec() {
  PositionEncodingSpec s;
  s.name = "sinusoidal";
  s.adds_to_embeddings = true;
  s.validate = [](const ModelConfig&) {};
  s.make = [](ParameterStore&, const ModelConfig& c) { return std::make_unique<SinusoidalEncoding>(c); };
  s.options = with_randomized_positions({absolute_position_scale_option()});
  return s;
}

}  // namespace rotor

#include "models/sinusoidal_encoding.h"

#include <cmath>
#include <mutex>
#include <vector>

#include "models/position_encoding.h"

namespace rotor {

Tensor sinusoidal_table(int64_t length, int64_t d, DType dtype) {
  std::vector<double> pe(static_cast<size_t>(length * d));
  for (int64_t p = 0; p < length; ++p)
    for (int64_t j = 0; j < d; ++j) {
      const double angle = static_cast<double>(p) * std::pow(10000.0, -static_cast<double>(j - j % 2) / d);
      pe[p * d + j] = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
  return Tensor::from_doubles({length, d}, dtype, pe);
}

namespace {

class SinusoidalEncoding : public PositionEncoding {
 public:
  explicit SinusoidalEncoding(int64_t d_model) : d_model_(d_model) {}

  // Vaswani et al. (section 3.4) multiply embeddings drawn N(0, d^-1/2) (the
  // tensor2tensor recipe) by sqrt(d): unit-scale tokens next to a table of RMS
  // 1/sqrt(2). BERT's N(0, 0.02) times sqrt(d) would let positions swamp tokens.
  double token_init_std(double) const override { return 1.0 / std::sqrt(static_cast<double>(d_model_)); }
  double token_scale() const override { return std::sqrt(static_cast<double>(d_model_)); }

  Var add_to_embeddings(const ParameterStore& store, const Var& x) const override {
    const int64_t n = x.size(1);
    Tensor rows;
    {
      // One table for the longest length seen (bounded by the longest input);
      // shorter inputs use a view of its first rows.
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!table_.defined() || table_.size(0) < n) table_ = sinusoidal_table(n, d_model_, store.dtype());
      rows = table_.view(0, {n, d_model_});
    }
    return add(x, Var(rows));
  }

 private:
  int64_t d_model_;
  mutable std::mutex mutex_;
  mutable Tensor table_;
};

}  // namespace

PositionEncodingSpec sinusoidal_encoding_spec() {
  PositionEncodingSpec s;
  s.name = "sinusoidal";
  s.validate = [](const ModelConfig&) {};
  s.make = [](ParameterStore&, const ModelConfig& c) { return std::make_unique<SinusoidalEncoding>(c.d_model); };
  return s;
}

}  // namespace rotor

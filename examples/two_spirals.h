#pragma once
// The two-spirals toy problem, the small MLP that learns it and the training
// recipe. The demo (examples/spirals.cpp) and the engine's end-to-end test
// (tests/engine/test_mlp_spirals.cpp) share them; header-only, so the test
// executable needs no extra library.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/ops.h"
#include "engine/optim/adam.h"
#include "engine/optim/lr_schedule.h"
#include "engine/parameters.h"
#include "engine/random.h"

namespace rotor::examples {

struct SpiralsData {
  Tensor points;                // [2n, 2] float32
  std::vector<int32_t> labels;  // [2n], class 0 or 1
};

// Two interleaved spirals of n points each. Point i of class c sits at
// s = (i + 0.5) / n along its arm, at angle 2 pi turns s + c pi and radius
// 0.15 + 0.85 s (the arms start apart, so the noise cannot mix the classes at
// the centre), plus Gaussian jitter of std `noise` per coordinate, drawn from
// the seed: the data are the same on every machine and thread count.
inline SpiralsData make_two_spirals(int64_t n, double turns, double noise, uint64_t seed) {
  constexpr double kPi = 3.14159265358979323846;
  const RandomKey jitter{seed, stream_id("two_spirals.noise"), 0};
  std::vector<double> xy;
  SpiralsData data;
  for (int32_t c = 0; c < 2; ++c)
    for (int64_t i = 0; i < n; ++i) {
      const double s = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
      const double angle = 2 * kPi * turns * s + c * kPi;
      const uint64_t point = static_cast<uint64_t>(c * n + i);
      const double radius = 0.15 + 0.85 * s;
      xy.push_back(radius * std::cos(angle) + noise * jitter.normal(2 * point));
      xy.push_back(radius * std::sin(angle) + noise * jitter.normal(2 * point + 1));
      data.labels.push_back(c);
    }
  data.points = Tensor::from_doubles({2 * n, 2}, DType::F32, xy);
  return data;
}

// 2 -> hidden -> hidden -> 2 with tanh; weights in one ParameterStore. Weights
// start at std 1/sqrt(fan_in) (tanh keeps unit-scale activations), biases at 0
// and excluded from weight decay.
class SpiralsMlp {
 public:
  SpiralsMlp(int64_t hidden, uint64_t seed) {
    add_layer("fc1", 2, hidden);
    add_layer("fc2", hidden, hidden);
    add_layer("fc3", hidden, 2);
    params_.allocate(seed);
  }
  SpiralsMlp(const SpiralsMlp&) = delete;  // optimizers hold a reference to params()
  SpiralsMlp& operator=(const SpiralsMlp&) = delete;

  Var logits(const Var& x) const {
    Var h = tanh(layer(0, x));
    h = tanh(layer(1, h));
    return layer(2, h);
  }

  ParameterStore& params() { return params_; }
  const ParameterStore& params() const { return params_; }

 private:
  void add_layer(const std::string& name, int64_t in, int64_t out) {
    const double std = 1.0 / std::sqrt(static_cast<double>(in));
    layers_.push_back({params_.declare(name + ".weight", {out, in}, ParameterInit::normal(std)),
                       params_.declare(name + ".bias", {out}, ParameterInit::zeros(), false)});
  }
  Var layer(size_t i, const Var& x) const {
    return linear(x, params_.var(layers_[i].weight), params_.var(layers_[i].bias));
  }

  struct Layer {
    ParameterId weight, bias;
  };
  ParameterStore params_;
  std::vector<Layer> layers_;
};

// The recipe the demo and the test both run: full-batch AdamW with a
// warm-up + cosine schedule.
struct SpiralsConfig {
  int64_t points_per_class = 200;
  double turns = 1.75;
  double noise = 0.02;
  uint64_t data_seed = 7;
  int64_t hidden = 64;
  uint64_t init_seed = 1;
  int64_t steps = 600;
  double lr = 0.02;
  int64_t warmup_steps = 50;
  double min_lr = 0.001;
  double weight_decay = 1e-4;
};

class SpiralsTraining {
 public:
  explicit SpiralsTraining(const SpiralsConfig& config = {})
      : config_(config),
        data_(make_two_spirals(config.points_per_class, config.turns, config.noise, config.data_seed)),
        model_(config.hidden, config.init_seed),
        optimizer_(model_.params(), adamw_options(config)),
        schedule_(LrSchedule::linear_warmup_cosine(config.lr, config.warmup_steps, config.steps, config.min_lr)) {}

  // Takes the next step; returns the loss before the update.
  double step() {
    ++steps_taken_;
    model_.params().zero_grad();
    const Var loss = cross_entropy(model_.logits(Var(data_.points)), data_.labels);
    backward(loss);
    optimizer_.step(lr());
    return loss.value().item();
  }
  bool done() const { return steps_taken_ >= config_.steps; }

  // Fraction of points whose larger logit is their label's.
  double accuracy() const {
    NoGradGuard no_grad;
    const Tensor logits = model_.logits(Var(data_.points)).value();
    const float* z = logits.data<float>();
    int64_t correct = 0;
    for (size_t i = 0; i < data_.labels.size(); ++i) correct += (z[2 * i + 1] > z[2 * i]) == (data_.labels[i] == 1);
    return static_cast<double>(correct) / static_cast<double>(data_.labels.size());
  }

  int64_t steps_taken() const { return steps_taken_; }
  double lr() const { return schedule_.lr_at(steps_taken_); }  // of the latest step
  const SpiralsConfig& config() const { return config_; }
  int64_t num_points() const { return static_cast<int64_t>(data_.labels.size()); }
  int64_t num_parameters() const { return model_.params().total_size(); }

 private:
  static AdamOptions adamw_options(const SpiralsConfig& config) {
    AdamOptions options;
    options.weight_decay = config.weight_decay;
    return options;
  }

  SpiralsConfig config_;
  SpiralsData data_;
  SpiralsMlp model_;
  AdamW optimizer_;
  LrSchedule schedule_;
  int64_t steps_taken_ = 0;
};

}  // namespace rotor::examples

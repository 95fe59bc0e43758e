#pragma once
// Learning-rate schedules: pure functions of the step, so the only schedule
// state a checkpoint needs is the step count.
//
// `step` t is the 1-based number of the update about to be taken: a trainer
// calls optimizer.step(schedule.lr_at(t)) for t = 1, 2, ... (lr_at(0) is the
// value before any update: 0 under warm-up). With lr the peak, W =
// warmup_steps, T = total_steps and m = min_lr, every schedule begins with a
// linear warm-up from 0 (skipped when W = 0):
//   t < W:  lr * t / W
// and continues, for t >= W, by its kind:
//   constant:      lr
//   linear:        m + (lr - m) * (T - t) / (T - W)                   while t < T, then m
//   cosine:        m + (lr - m) * (1 + cos(pi * (t - W) / (T - W))) / 2   while t < T, then m
//   inverse_sqrt:  lr * sqrt(W / t)
// so inverse_sqrt is lr * min(t / W, sqrt(W / t)) for every t >= 1, and
// needs W >= 1 (its decay is anchored at the end of warm-up).
#include <array>
#include <cstdint>
#include <utility>

#include "engine/option_names.h"

namespace rotor {

enum class LrScheduleKind { constant, linear, cosine, inverse_sqrt };

template <>
struct OptionNames<LrScheduleKind> {
  static constexpr std::array<std::pair<LrScheduleKind, const char*>, 4> table{
      {{LrScheduleKind::constant, "constant"},
       {LrScheduleKind::linear, "linear"},
       {LrScheduleKind::cosine, "cosine"},
       {LrScheduleKind::inverse_sqrt, "inverse_sqrt"}}};
};

// The schedule as it appears in a config file (its name read once, by the config loader).
struct LrScheduleConfig {
  LrScheduleKind kind = LrScheduleKind::constant;
  double lr = 1e-3;  // peak
  int64_t warmup_steps = 0;
  int64_t total_steps = 0;  // linear, cosine: the step where the decay reaches min_lr
  double min_lr = 0.0;      // linear, cosine: the floor
};

class LrSchedule {
 public:
  using Kind = LrScheduleKind;

  // Validates the config; throws ValueError naming the offending field, e.g.
  // "lr_schedule.total_steps: must be >= warmup_steps (100), got 50".
  explicit LrSchedule(const LrScheduleConfig& config);

  static LrSchedule constant(double lr, int64_t warmup_steps = 0);
  static LrSchedule linear_warmup_linear_decay(double lr, int64_t warmup_steps, int64_t total_steps,
                                               double min_lr = 0.0);
  static LrSchedule linear_warmup_cosine(double lr, int64_t warmup_steps, int64_t total_steps, double min_lr = 0.0);
  static LrSchedule inverse_sqrt(double lr, int64_t warmup_steps);

  // Throws ValueError for a negative step.
  double lr_at(int64_t step) const;

  Kind kind() const { return config_.kind; }
  const LrScheduleConfig& config() const { return config_; }

 private:
  LrScheduleConfig config_;
};

}  // namespace rotor

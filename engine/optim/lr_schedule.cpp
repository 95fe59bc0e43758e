#include "engine/optim/lr_schedule.h"

#include <cmath>

#include "engine/error.h"

namespace rotor {
namespace {

constexpr double kPi = 3.14159265358979323846;

[[noreturn]] void invalid(const std::string& field, const std::string& rule, const std::string& got) {
  throw ValueError("lr_schedule." + field + ": " + rule + ", got " + got);
}

}  // namespace

LrSchedule::LrSchedule(const LrScheduleConfig& c) : config_(c) {
  if (!std::isfinite(c.lr) || c.lr < 0) invalid("lr", "must be finite and >= 0", std::to_string(c.lr));
  if (c.warmup_steps < 0) invalid("warmup_steps", "must be >= 0", std::to_string(c.warmup_steps));
  if (c.kind == Kind::inverse_sqrt && c.warmup_steps < 1)
    invalid("warmup_steps", "must be >= 1 for inverse_sqrt", std::to_string(c.warmup_steps));
  if (c.kind == Kind::linear || c.kind == Kind::cosine) {
    if (c.total_steps < 1)
      invalid("total_steps", "must be >= 1 for " + std::string(option_name(c.kind)), std::to_string(c.total_steps));
    if (c.total_steps < c.warmup_steps)
      invalid("total_steps", "must be >= warmup_steps (" + std::to_string(c.warmup_steps) + ")",
              std::to_string(c.total_steps));
    if (!(c.min_lr >= 0 && c.min_lr <= c.lr)) invalid("min_lr", "must be in [0, lr]", std::to_string(c.min_lr));
  }
}

LrSchedule LrSchedule::constant(double lr, int64_t warmup_steps) {
  return LrSchedule({Kind::constant, lr, warmup_steps, 0, 0.0});
}

LrSchedule LrSchedule::linear_warmup_linear_decay(double lr, int64_t warmup_steps, int64_t total_steps, double min_lr) {
  return LrSchedule({Kind::linear, lr, warmup_steps, total_steps, min_lr});
}

LrSchedule LrSchedule::linear_warmup_cosine(double lr, int64_t warmup_steps, int64_t total_steps, double min_lr) {
  return LrSchedule({Kind::cosine, lr, warmup_steps, total_steps, min_lr});
}

LrSchedule LrSchedule::inverse_sqrt(double lr, int64_t warmup_steps) {
  return LrSchedule({Kind::inverse_sqrt, lr, warmup_steps, 0, 0.0});
}

double LrSchedule::lr_at(int64_t step) const {
  if (step < 0) throw ValueError("lr_at: step must be >= 0, got " + std::to_string(step));
  const double t = static_cast<double>(step), lr = config_.lr, m = config_.min_lr;
  const double W = static_cast<double>(config_.warmup_steps), T = static_cast<double>(config_.total_steps);
  if (step < config_.warmup_steps) return lr * t / W;
  switch (config_.kind) {
    case Kind::constant:
      return lr;
    case Kind::linear:
      if (step >= config_.total_steps) return m;
      return m + (lr - m) * (T - t) / (T - W);
    case Kind::cosine:
      if (step >= config_.total_steps) return m;
      return m + (lr - m) * (1 + std::cos(kPi * (t - W) / (T - W))) / 2;
    case Kind::inverse_sqrt:
      return lr * std::sqrt(W / t);
  }
  return lr;  // unreachable: every kind returns above
}

}  // namespace rotor

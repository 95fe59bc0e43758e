#include "trainers/training/progress.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/core.h>

namespace rotor {

Progress::Style Progress::style(ProgressMode mode) {
  switch (mode) {
    case ProgressMode::bar:
      return Style::bar;
    case ProgressMode::lines:
      return Style::lines;
    case ProgressMode::none:
      return Style::none;
    case ProgressMode::automatic:
      break;
  }
  return isatty(STDERR_FILENO) ? Style::bar : Style::lines;
}

Progress::Progress(std::string label, int64_t total, Style style, double line_interval_s)
    : label_(std::move(label)),
      total_(total),
      style_(style),
      interval_(line_interval_s),
      start_(std::chrono::steady_clock::now()),
      last_line_(start_) {}

std::string format_duration(double s) {
  const long t = static_cast<long>(s + 0.5);
  if (t >= 3600) return fmt::format("{}h{:02}m", t / 3600, (t % 3600) / 60);
  if (t >= 60) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}s", t);
}

void Progress::update(int64_t done, const std::string& info, double rate, const std::string& unit) {
  if (style_ == Style::none) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double frac = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 0.0;
  const std::string eta = frac > 0 ? format_duration(elapsed * (1 - frac) / frac) : "?";
  const std::string rate_text = fmt::format("{:.0f} {}", rate, unit);
  if (style_ == Style::bar) {
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(frac * kWidth);
    std::string bar(static_cast<size_t>(filled), '#');
    bar += std::string(static_cast<size_t>(kWidth - filled), '.');
    fmt::print(stderr, "\r\033[K{} [{}] {}/{} {} | {} | {} | ETA {}", label_, bar, done, total_, info, rate_text,
               format_duration(elapsed), eta);
    std::fflush(stderr);
    drawn_ = true;
    return;
  }
  if (std::chrono::duration<double>(now - last_line_).count() < interval_ && done < total_) return;
  last_line_ = now;
  fmt::print(stderr, "{} {}/{} ({:.0f}%) {} | {} | elapsed {} | ETA {}\n", label_, done, total_, 100 * frac, info,
             rate_text, format_duration(elapsed), eta);
}

void Progress::note(const std::string& line) {
  fmt::print(stderr, "{}{}\n", drawn_ ? "\r\033[K" : "", line);
  drawn_ = false;
}

void Progress::finish(const std::string& info) {
  if (style_ == Style::none) return;
  if (drawn_) fmt::print(stderr, "\n");
  drawn_ = false;
  if (!info.empty()) fmt::print(stderr, "{} {}\n", label_, info);
}

}  // namespace rotor

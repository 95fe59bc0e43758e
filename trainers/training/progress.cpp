#include "trainers/training/progress.h"

#include <unistd.h>

#include <cstdio>

namespace rotor {

Progress::Style Progress::parse(const std::string& mode) {
  if (mode == "bar") return Style::bar;
  if (mode == "lines") return Style::lines;
  if (mode == "none") return Style::none;
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
  char buf[32];
  const long t = static_cast<long>(s + 0.5);
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
  else if (t >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}

void Progress::update(int64_t done, const std::string& info, double rate, const std::string& unit) {
  if (style_ == Style::none) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double frac = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 0.0;
  const std::string eta = frac > 0 ? format_duration(elapsed * (1 - frac) / frac) : "?";
  char rate_text[48];
  std::snprintf(rate_text, sizeof rate_text, "%.0f %s", rate, unit.c_str());
  if (style_ == Style::bar) {
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(frac * kWidth);
    std::string bar(static_cast<size_t>(filled), '#');
    bar += std::string(static_cast<size_t>(kWidth - filled), '.');
    std::fprintf(stderr, "\r\033[K%s [%s] %lld/%lld %s | %s | %s | ETA %s", label_.c_str(), bar.c_str(),
                 static_cast<long long>(done), static_cast<long long>(total_), info.c_str(), rate_text,
                 format_duration(elapsed).c_str(), eta.c_str());
    std::fflush(stderr);
    drawn_ = true;
    return;
  }
  if (std::chrono::duration<double>(now - last_line_).count() < interval_ && done < total_) return;
  last_line_ = now;
  std::fprintf(stderr, "%s %lld/%lld (%.0f%%) %s | %s | elapsed %s | ETA %s\n", label_.c_str(),
               static_cast<long long>(done), static_cast<long long>(total_), 100 * frac, info.c_str(), rate_text,
               format_duration(elapsed).c_str(), eta.c_str());
}

void Progress::note(const std::string& line) {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
  std::fprintf(stderr, "%s\n", line.c_str());
  drawn_ = false;
}

void Progress::finish(const std::string& info) {
  if (style_ == Style::none) return;
  if (drawn_) std::fprintf(stderr, "\n");
  drawn_ = false;
  if (!info.empty()) std::fprintf(stderr, "%s %s\n", label_.c_str(), info.c_str());
}

}  // namespace rotor

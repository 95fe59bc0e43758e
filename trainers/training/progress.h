#pragma once
// Progress display for long work: a redrawn bar with rate and ETA on a
// terminal, plain periodic lines otherwise (logs, CI), or nothing.
// Ours because Debian 12 packages no C++ progress-bar library (indicators,
// tqdm.cpp, ... are not in its archive) and this is about 70 lines.
#include <chrono>
#include <cstdint>
#include <string>

#include "trainers/config/config_options.h"

namespace rotor {

class Progress {
 public:
  enum class Style { bar, lines, none };
  // run.progress; automatic picks bar when stderr is a terminal, else lines.
  static Style style(ProgressMode mode);

  Progress(std::string label, int64_t total, Style style, double line_interval_s = 10.0);
  // done: units finished so far; info: a short status ("loss 0.41 acc 0.88").
  void update(int64_t done, const std::string& info, double rate_per_s, const std::string& rate_unit);
  void finish(const std::string& info);  // ends the bar's line
  void note(const std::string& line);    // a message that must not be overdrawn

 private:
  std::string label_;
  int64_t total_;
  Style style_;
  double interval_;
  std::chrono::steady_clock::time_point start_, last_line_;
  bool drawn_ = false;
};

std::string format_duration(double seconds);  // "1h02m", "3m05s", "12s"

}  // namespace rotor

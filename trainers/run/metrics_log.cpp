#include "trainers/run/metrics_log.h"

#include <vector>

#include <fmt/core.h>

#include "storage/checkpoint_fs.h"
#include "trainers/config/config.h"
#include "trainers/run/metrics_history.h"

namespace rotor {

MetricsLog::MetricsLog(const std::string& path, int64_t keep_through_step) : path_(path) {
  std::vector<std::string> kept, warnings;
  if (keep_through_step >= 0) kept = metrics_lines_to_keep(path, keep_through_step, warnings);
  for (const std::string& w : warnings) fmt::print(stderr, "warning: {}\n", w);
  // Rewritten atomically: a kill here leaves the old file, never a cut one.
  std::string text;
  for (const std::string& line : kept) text += line + '\n';
  checkpoint_fs::write_file_atomically(path, text);
  out_.open(path, std::ios::app);
  if (!out_) throw ConfigError(path + ": cannot write the metrics log");
}

void MetricsLog::write_line(const JsonFields& event) {
  out_ << compact_json(event) << '\n';
  out_.flush();
  if (!out_) throw Error(path_ + ": cannot write the metrics log (disk full?)");
}

}  // namespace rotor

#include "trainers/training/metrics_log.h"

#include <sstream>
#include <vector>

#include "trainers/config/config.h"

namespace rotor {
namespace {

// The "step" field of a metrics line, or -1.
int64_t step_of(const std::string& line) {
  const size_t at = line.find("\"step\": ");
  return at == std::string::npos ? -1 : std::stoll(line.substr(at + 8));
}

}  // namespace

MetricsLog::MetricsLog(const std::string& path, int64_t keep_through_step) : path_(path) {
  std::vector<std::string> kept;
  if (keep_through_step >= 0) {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && step_of(line) <= keep_through_step) kept.push_back(line);
  }
  out_.open(path, std::ios::trunc);
  if (!out_) throw ConfigError(path + ": cannot write the metrics log");
  for (const std::string& line : kept) out_ << line << '\n';
  out_.flush();
}

void MetricsLog::write(const JsonBuilder& event) {
  out_ << event.str() << '\n';
  out_.flush();
}

}  // namespace rotor

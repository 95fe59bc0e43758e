#include "trainers/training/metrics_log.h"

#include <sstream>
#include <vector>

#include "trainers/config/config.h"

namespace rotor {
namespace {

// The "step" field of a metrics line, or -1 (also for a line cut short by a crash).
int64_t step_of(const std::string& line) {
  const JsonFields event = JsonFields::parse(line, nullptr, /*allow_exceptions=*/false);
  const auto step = event.is_object() ? event.find("step") : event.end();
  return step != event.end() && step->is_number_integer() ? step->get<int64_t>() : -1;
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

void MetricsLog::write(const JsonFields& event) {
  out_ << json_line(event) << '\n';
  out_.flush();
}

}  // namespace rotor

#include "trainers/run/metrics_history.h"

#include <fstream>

#include "engine/error.h"
#include "trainers/run/json_file.h"
#include "trainers/run/metrics_events.h"

namespace rotor {
namespace {

// A line that is not a complete event, named by "<path>:<line>".
struct NotAnEvent : Error {
  using Error::Error;
};

EventHeader parse_header(const std::string& line, const std::string& where) {
  try {
    return JsonFields::parse(line).get<EventHeader>();
  } catch (const nlohmann::json::exception& e) {
    throw NotAnEvent(where + ": expected a metrics event with \"event\" and an integer \"step\" (" + e.what() + ")");
  }
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (in.bad()) throw Error(path + ": cannot read the metrics log");
  return lines;
}

}  // namespace

std::vector<std::string> metrics_lines_to_keep(const std::string& path, int64_t step,
                                               std::vector<std::string>& warnings) {
  const std::vector<std::string> lines = read_lines(path);
  std::vector<std::string> kept;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    const std::string where = path + ":" + std::to_string(i + 1);
    try {
      const EventHeader e = parse_header(lines[i], where);
      if (e.step <= step && e.event != "final") kept.push_back(lines[i]);
    } catch (const NotAnEvent& e) {
      if (i + 1 != lines.size()) {
        throw Error(std::string(e.what()) + " (a damaged metrics log; repair or remove that line to resume)");
      }
      warnings.push_back(where + ": dropping the last line, cut short when the run was killed");
    }
  }
  return kept;
}

std::vector<std::pair<int64_t, double>> read_validation_curve(const std::string& path, const std::string& metric) {
  std::vector<std::pair<int64_t, double>> curve;
  const std::vector<std::string> lines = read_lines(path);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    try {
      const JsonFields j = JsonFields::parse(lines[i]);
      if (j.value("event", "") != "eval") continue;
      const EvalEvent e = j.get<EvalEvent>();
      if (e.split == "val") curve.emplace_back(e.step, e.scores.get(metric));
    } catch (const nlohmann::json::exception& ex) {
      throw RunFileError(path + ":" + std::to_string(i + 1) + ": not a metrics event (" + ex.what() + ")");
    } catch (const ValueError& ex) {
      throw RunFileError(path + ":" + std::to_string(i + 1) + ": " + ex.what());
    }
  }
  return curve;
}

}  // namespace rotor

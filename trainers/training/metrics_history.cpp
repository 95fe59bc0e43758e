#include "trainers/training/metrics_history.h"

#include <fstream>

#include "datasets/data_error.h"
#include "datasets/json_line.h"
#include "engine/error.h"

namespace rotor {
namespace {

struct Event {
  std::string kind;  // "train", "eval", "final"
  int64_t step = 0;
};

// Throws DataError when `line` is not a complete event.
Event parse_event(const std::string& line, const std::string& where) {
  int64_t replaced = 0;
  const JsonObject object = parse_json_object(line, where, replaced);
  const JsonValue* event = find_field(object, "event");
  const JsonValue* step = find_field(object, "step");
  if (event == nullptr || event->kind != JsonValue::Kind::string || step == nullptr ||
      step->kind != JsonValue::Kind::number || step->text.find_first_of(".eE") != std::string::npos) {
    throw DataError(where + ": expected a metrics event with \"event\" and an integer \"step\"");
  }
  return {event->text, std::stoll(step->text)};
}

}  // namespace

std::vector<std::string> metrics_lines_to_keep(const std::string& path, int64_t step,
                                               std::vector<std::string>& warnings) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (in.bad()) throw Error(path + ": cannot read the metrics log");
  std::vector<std::string> kept;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    const std::string where = path + ":" + std::to_string(i + 1);
    try {
      const Event e = parse_event(lines[i], where);
      if (e.step <= step && e.kind != "final") kept.push_back(lines[i]);
    } catch (const DataError& e) {
      if (i + 1 != lines.size()) {
        throw Error(std::string(e.what()) + " (a damaged metrics log; repair or remove that line to resume)");
      }
      warnings.push_back(where + ": dropping the last line, cut short when the run was killed");
    }
  }
  return kept;
}

}  // namespace rotor

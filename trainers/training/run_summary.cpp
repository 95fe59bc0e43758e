#include "trainers/training/run_summary.h"

#include <fstream>
#include <sstream>

#include "datasets/data_error.h"
#include "datasets/json_line.h"

namespace rotor {

std::optional<int64_t> summarized_steps(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  std::string body = text.str();
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
  try {
    int64_t replaced = 0;
    const JsonObject object = parse_json_object(body, path, replaced);
    const JsonValue* steps = find_field(object, "steps");
    if (steps == nullptr || steps->kind != JsonValue::Kind::number ||
        steps->text.find_first_of(".eE") != std::string::npos) {
      return std::nullopt;
    }
    return std::stoll(steps->text);
  } catch (const DataError&) {
    return std::nullopt;
  }
}

}  // namespace rotor

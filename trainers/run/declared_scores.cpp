#include "trainers/run/declared_scores.h"

namespace rotor {

SplitScores declared_scores(const ObjectiveSpec& spec, const SplitScores& measured) {
  SplitScores out;
  for (const MetricDeclaration& m : spec.metrics)
    out.set(m.name, m.derived_from.empty() ? measured.get(m.name) : m.derive(measured.get(m.derived_from)));
  for (const auto& [name, value] : measured.values())
    if (!out.has(name)) out.set(name, value);
  return out;
}

std::string describe_scores(const ObjectiveSpec& spec, const SplitScores& scores) {
  std::string line;
  if (scores.absent()) {
    for (const MetricDeclaration& m : spec.metrics) line += (line.empty() ? "" : ", ") + m.shown_name();
    return "nothing scored: " + line + " absent";
  }
  for (const MetricDeclaration& m : spec.metrics)
    line += (line.empty() ? "" : "  ") + m.shown_name() + " " + m.format(scores.get(m.name));
  return line;
}

}  // namespace rotor

#include "trainers/study/unit_evidence.h"

namespace rotor {
namespace {

template <class T>
std::vector<double> as_doubles(const std::vector<T>& values) {
  return std::vector<double>(values.begin(), values.end());
}

}  // namespace

bool has_units(const SweepCell& cell, EvidenceUnit unit) {
  switch (unit) {
    case EvidenceUnit::document:
      return !cell.predictions.empty();
    case EvidenceUnit::window:
      return !cell.window_nats.empty();
    case EvidenceUnit::sample:
      break;
  }
  return !cell.sample_numerators.empty();
}

UnitScores unit_scores(const SweepCell& cell, EvidenceUnit unit) {
  UnitScores u;
  switch (unit) {
    case EvidenceUnit::document:
      for (size_t d = 0; d < cell.labels.size(); ++d) u.numerators.push_back(cell.predictions[d] == cell.labels[d]);
      u.denominators.assign(cell.labels.size(), 1.0);
      u.identity = as_doubles(cell.labels);
      return u;
    case EvidenceUnit::window:
      u.numerators = cell.window_nats;
      u.denominators = as_doubles(cell.window_tokens);
      u.identity = u.denominators;
      return u;
    case EvidenceUnit::sample:
      break;
  }
  u.numerators = cell.sample_numerators;
  u.denominators = cell.sample_denominators;
  u.identity = u.denominators;
  return u;
}

std::string units_differ(EvidenceUnit unit, const SweepCell& point) {
  switch (unit) {
    case EvidenceUnit::document:
      return "the " + point.split + " labels differ from the other runs' (not the same documents)";
    case EvidenceUnit::window:
      return "the " + point.split + " windows at " + std::to_string(point.length) +
             " tokens differ from the other runs' (not the same text or stride)";
    case EvidenceUnit::sample:
      break;
  }
  return "the " + point.split + " samples' target tokens differ from the other runs' (not the same samples)";
}

}  // namespace rotor

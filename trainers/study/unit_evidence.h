#pragma once
// A run's evidence in one sweep cell, unit by unit, as its objective's row
// counts units (EvidenceUnit, objective_table.h): each unit a (numerator,
// denominator) pair in the split's order, the same units for every run of a
// study. The study's statistics resample these units whatever the objective.
#include <string>
#include <vector>

#include "trainers/config/objective_table.h"
#include "trainers/run/length_sweep_record.h"

namespace rotor {

struct UnitScores {
  std::vector<double> numerators, denominators;
  // What identifies the units (a document's label, a window's or a sample's
  // token count): equal in every run scored on the same units.
  std::vector<double> identity;
};

// Whether `cell` holds its units (a cell of an older rotor may not: evaluated again).
bool has_units(const SweepCell& cell, EvidenceUnit unit);
// The units of `cell`; empty when it holds none.
UnitScores unit_scores(const SweepCell& cell, EvidenceUnit unit);
// What differs when two runs' units are not the same, and why, for the error:
// "labels ... (not the same documents)".
std::string units_differ(EvidenceUnit unit, const SweepCell& point);

}  // namespace rotor

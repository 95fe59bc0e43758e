#pragma once
// The length sweep of one finished run: its best checkpoint evaluated on
// held-out splits at every evaluation window length, with RoPE scalings
// beyond the training length. Results go to the run's length sweep record
// (run/length_sweep_record.h), one cell per (split, length, scaling),
// rewritten after each cell so that an interrupted sweep resumes where it
// stopped. A cell the model cannot run (learned positions beyond their table)
// is stored as n/a with the reason.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "trainers/run/length_sweep_record.h"

namespace rotor {

// The points of `plan` that the run's length sweep does not have yet (or has
// without per-document predictions, from an older rotor).
std::vector<SweepCell> missing_points(const std::string& run_dir, const std::vector<SweepCell>& plan);

// Evaluates the points of `plan` (split, length, scaling) missing from the
// run's length sweep with its best checkpoint (the summary's best_step). `on_cell(done, total, cell)` reports progress.
void run_length_sweep(const std::string& run_dir, const std::vector<SweepCell>& plan,
                      const std::function<void(size_t, size_t, const SweepCell&)>& on_cell = {});

}  // namespace rotor

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
#include <optional>
#include <string>
#include <vector>

#include "datasets/dataset.h"
#include "trainers/config/config.h"
#include "trainers/run/length_sweep_record.h"

namespace rotor {

// The points of `plan` that the run's length sweep does not have yet (or has
// without per-document predictions, from an older rotor).
std::vector<SweepCell> missing_points(const std::string& run_dir, const std::vector<SweepCell>& plan);

// Evaluates the points of `plan` (split, length, scaling) missing from the
// run's length sweep with its best checkpoint (the summary's best_step). `on_cell(done, total, cell)` reports progress.
// The plan's point that scores `split` as the trainer's final evaluation does: its one unscaled point, at the
// split's own length. None for a token stream's windows, for documents the trainer cuts at data.eval_max_len, or
// where the plan has several lengths.
std::optional<SweepCell> own_length_point(const std::vector<SweepCell>& plan, const Config& config,
                                          const std::string& split);

// The held-out split's score from the run's best checkpoint at its own_length_point, recorded in the run's sweep:
// the trainer's final score of the split (HeldOutScores, training/trainer.h), so the split is evaluated once.
// nullopt where there is no such point or the model cannot run it: the trainer then scores the split itself.
std::optional<SplitScores> sweep_held_out_split(const std::string& run_dir, const std::vector<SweepCell>& plan,
                                                const Config& config, const std::string& split,
                                                const std::string& checkpoint, const Dataset& data);

void run_length_sweep(const std::string& run_dir, const std::vector<SweepCell>& plan,
                      const std::function<void(size_t, size_t, const SweepCell&)>& on_cell = {});

}  // namespace rotor

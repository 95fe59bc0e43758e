#pragma once
// The length sweep of one finished run: its best checkpoint evaluated on
// held-out splits at every evaluation window length, with RoPE scalings
// beyond the training length. Results go to RUN/length_sweep.json, one cell
// per (split, length, scaling), rewritten after each cell so that an
// interrupted sweep resumes where it stopped. A cell the model cannot run
// (learned positions beyond their table) is stored as n/a with the reason.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rotor {

struct SweepCell {
  std::string split;
  int64_t length = 0;
  std::string scaling = "none";
  bool available = false;  // false: n/a, see reason
  std::string reason;
  double accuracy = 0.0, macro_f1 = 0.0, loss = 0.0;
  int64_t documents = 0;
  // Per document of the split, in split order: the predicted class (-1: not
  // served) and the label. The study's paired statistics compare runs
  // document by document; a cell stored without them is evaluated again.
  std::vector<int32_t> predictions, labels;

  bool same_point(const SweepCell& other) const {
    return split == other.split && length == other.length && scaling == other.scaling;
  }
};

// The cells of RUN/length_sweep.json (none when the file does not exist).
std::vector<SweepCell> read_length_sweep(const std::string& run_dir);

// The points of `plan` that RUN/length_sweep.json does not have yet (or has
// without per-document predictions, from an older rotor).
std::vector<SweepCell> missing_points(const std::string& run_dir, const std::vector<SweepCell>& plan);

// Evaluates the points of `plan` (split, length, scaling) missing from
// RUN/length_sweep.json with the run's best checkpoint (summary.json's
// best_step). `on_cell(done, total, cell)` reports progress.
void run_length_sweep(const std::string& run_dir, const std::vector<SweepCell>& plan,
                      const std::function<void(size_t, size_t, const SweepCell&)>& on_cell = {});

}  // namespace rotor

#pragma once
// Reading an existing metrics.jsonl back: what a resumed run keeps of it (the
// events up to the checkpoint's step, as the file would read had the run never
// stopped), and the validation curve a study plots.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rotor {

// The lines of `path` (missing: none) whose "step" is <= `step`, without
// "final" events (a resumed run writes them again when it finishes). A last
// line cut short by a kill is dropped with a warning added to *warnings; any
// other line that is not a metrics event throws Error naming file and line.
std::vector<std::string> metrics_lines_to_keep(const std::string& path, int64_t step,
                                               std::vector<std::string>& warnings);

// (step, value of `metric`) of every "eval" event on split "val" in `path`
// (missing: none). A line that is not a metrics event, or lacks the metric,
// throws RunFileError naming file and line.
std::vector<std::pair<int64_t, double>> read_validation_curve(const std::string& path, const std::string& metric);

}  // namespace rotor

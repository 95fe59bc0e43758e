#pragma once
// What a resumed run keeps of an existing metrics.jsonl: the events up to the
// checkpoint's step, as the file would read had the run never stopped.
#include <cstdint>
#include <string>
#include <vector>

namespace rotor {

// The lines of `path` (missing: none) whose "step" is <= `step`, without
// "final" events (a resumed run writes them again when it finishes). A last
// line cut short by a kill is dropped with a warning added to *warnings; any
// other line that is not a metrics event throws Error naming file and line.
std::vector<std::string> metrics_lines_to_keep(const std::string& path, int64_t step,
                                               std::vector<std::string>& warnings);

}  // namespace rotor

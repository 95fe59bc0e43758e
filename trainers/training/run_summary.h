#pragma once
// RUN/summary.json, written last by a run that finished: how a resumed run
// tells that there is nothing left to do.
#include <cstdint>
#include <optional>
#include <string>

namespace rotor {

// The "steps" of the summary at `path`; nullopt when there is none or it is
// not a complete summary (an interrupted final evaluation).
std::optional<int64_t> summarized_steps(const std::string& path);

}  // namespace rotor

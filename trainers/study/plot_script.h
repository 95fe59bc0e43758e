#pragma once
// Drawing plots with tools/plot_study.py under Debian's Python and
// matplotlib (never needed to train). The interpreter is $ROTOR_PYTHON, else
// /usr/bin/python3; the script is in $ROTOR_TOOLS_DIR, else the source tree's
// tools/ folder.
#include <string>
#include <vector>

namespace rotor {

// Runs `plot_study.py <mode> <args...>`. Returns "" on success, else what
// went wrong in one line (no interpreter, no matplotlib, the script's error).
std::string run_plot_script(const std::string& mode, const std::vector<std::string>& args);

}  // namespace rotor

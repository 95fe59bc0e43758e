#pragma once
// eval, predict and inspect take a checkpoint the same way: a .h5 file,
// RUN/checkpoints/latest or RUN/checkpoints/best, or a run directory (its best
// checkpoint on validation; its newest when no evaluation ran).
#include <CLI/CLI.hpp>
#include <string>

#include "trainers/checkpoint/checkpoint_directory.h"

namespace rotor {

void add_checkpoint_argument(CLI::App* command, std::string& path);

// The checkpoint file the argument names; how it was chosen is in `how` ("" for
// a file named directly). Warnings (e.g. a damaged newest file) are printed.
ResolvedCheckpoint checkpoint_file(const std::string& given);

// "FILE" or "FILE (how it was chosen)".
std::string describe(const ResolvedCheckpoint& checkpoint);

}  // namespace rotor

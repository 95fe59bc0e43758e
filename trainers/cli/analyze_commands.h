#pragma once
// The `rotor analyze` subcommands that read a checkpoint, one file each
// (analyze_<name>_command.cpp); analyze_command.cpp wires them.
#include "trainers/cli/command.h"

namespace rotor {

Command add_analyze_attention_command(CLI::App& analyze);
Command add_analyze_offsets_command(CLI::App& analyze);
Command add_analyze_frequencies_command(CLI::App& analyze);
Command add_analyze_bias_command(CLI::App& analyze);
Command add_analyze_passkey_command(CLI::App& analyze);

}  // namespace rotor

#pragma once
// The `rotor` commands, one file each: every add_*_command declares its
// subcommand's options on the app and returns how to run it. Running returns
// the process exit code; errors are thrown as rotor::Error and mapped to exit
// codes by main.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace rotor {

struct Command {
  CLI::App* app = nullptr;  // the subcommand; run() is called when it was parsed
  std::function<int()> run;
};

Command add_train_command(CLI::App& app);
Command add_eval_command(CLI::App& app);
Command add_predict_command(CLI::App& app);
Command add_inspect_command(CLI::App& app);
Command add_config_command(CLI::App& app);
// command_line: the whole command line, written into the study's report.
Command add_compare_command(CLI::App& app, const std::string& command_line);
Command add_analyze_command(CLI::App& app);
Command add_generate_command(CLI::App& app);

// Counts and lengths: a positive whole number.
const CLI::Validator& positive_number();

// A warning for the person at the terminal, on standard error.
void print_warning(const std::string& warning);

}  // namespace rotor

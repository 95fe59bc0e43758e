// rotor: train, evaluate and inspect Transformer encoder classifiers with
// different position encodings. main registers the commands (one file each,
// command.h) and maps errors to exit codes: errors of every layer are
// rotor::Error; they are caught here once and printed for people.
//
// Exit codes: 0 ok, 1 error, 2 usage, 130/143/129 stopped by SIGINT/SIGTERM/SIGHUP after
// saving a checkpoint.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <new>
#include <vector>

#include <fmt/core.h>

#include "engine/error.h"
#include "trainers/cli/command.h"
#include "trainers/run/build_id.h"
#include "trainers/training/thread_count.h"

namespace {

std::string command_line(int argc, char** argv) {
  std::string line;
  for (int a = 0; a < argc; ++a) line += (a ? " " : "") + std::string(argv[a]);
  return line;
}

// CLI11 would only say the word was not expected; this names the commands.
bool is_unknown_command(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return false;
  std::string names;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    known = known || sub->get_name() == argv[1];
  }
  if (!known) fmt::print(stderr, "rotor: unknown command '{}' (commands: {}; see rotor --help)\n", argv[1], names);
  return !known;
}

// Runs the parsed command; an error is printed once, and is exit code 1.
int run_parsed(const std::vector<rotor::Command>& commands) {
  try {
    for (const rotor::Command& command : commands)
      if (command.app->parsed()) return command.run();
    return 2;  // unreachable: the app requires one command
  } catch (const rotor::Error& err) {
    fmt::print(stderr, "\nerror: {}\n", err.what());
  } catch (const std::bad_alloc&) {
    fmt::print(stderr,
               "\nerror: out of memory: what this command was building needs more memory than the machine has "
               "(for a model: lower model.d_model, model.layers, data.batch_size or data.max_len; otherwise lower "
               "the sizes given on the command line)\n");
  } catch (const std::filesystem::filesystem_error& err) {  // a path the user gave: not unexpected
    fmt::print(stderr, "\nerror: {}: {}\n", err.path1().string(), err.code().message());
  } catch (const std::exception& err) {
    fmt::print(stderr, "\nerror (unexpected): {}\n", err.what());
  }
  return 1;
}

// Output redirected to a full disk or a closed pipe fails only when the
// buffer is flushed, after the command returned: a result the user never got
// is an error, not exit 0.
bool standard_output_written() {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
  fmt::print(stderr, "\nerror: standard output: cannot write: {}\n",
             errno != 0 ? std::strerror(errno) : "a write failed");
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // Idle OpenMP threads sleep instead of spinning: on a few shared cores a
  // spinning thread steals the time of the one doing the work.
  setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
  rotor::apply_thread_count(0);  // OMP_NUM_THREADS bounded before any command computes
  // Past a file-size limit (ulimit -f) a write then fails with EFBIG and is
  // reported like a full disk, instead of killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{
      "rotor: compare position encodings (RoPE, sinusoidal, T5 bias, ALiBi, ...) in Transformer "
      "classifiers and causal and masked language models.\n\nExit codes: 0 ok, 1 error, 2 usage, "
      "130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP after saving a checkpoint."};
  app.set_version_flag("--version", std::string("rotor ") + rotor::build_id());
  app.require_subcommand(1);
  const std::vector<rotor::Command> commands{
      rotor::add_train_command(app),   rotor::add_eval_command(app),
      rotor::add_predict_command(app), rotor::add_inspect_command(app),
      rotor::add_config_command(app),  rotor::add_compare_command(app, command_line(argc, argv)),
      rotor::add_analyze_command(app), rotor::add_generate_command(app)};
  if (is_unknown_command(app, argc, argv)) return 2;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help is a success; anything else is a usage error
  }
  const int code = run_parsed(commands);
  if (code != 0) return code;  // its one message is printed; a failed flush would add a second
  return standard_output_written() ? 0 : 1;
}

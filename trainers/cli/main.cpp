// rotor: train, evaluate and inspect Transformer encoder classifiers with
// different position encodings. Errors of every layer are rotor::Error; they
// are caught here once and printed for people.
//
// Exit codes: 0 ok, 1 error, 2 usage, 130/143/129 stopped by SIGINT/SIGTERM/SIGHUP after
// saving a checkpoint.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <new>

#include <fmt/core.h>

#include "engine/error.h"
#include "trainers/cli/commands.h"
#include "trainers/study/compare_command.h"
#include "trainers/training/trainer.h"

namespace {

// eval, predict and inspect take a checkpoint the same way.
void add_checkpoint_argument(CLI::App* command, std::string& path) {
  command
      ->add_option("checkpoint", path,
                   "Checkpoint: a .h5 file, RUN/checkpoints/latest or best, or a run directory (its best checkpoint)")
      ->required()
      ->check(CLI::ExistingPath);
}

}  // namespace

int main(int argc, char** argv) {
  // Idle OpenMP threads sleep instead of spinning: on a few shared cores a
  // spinning thread steals the time of the one doing the work.
  setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
  // Past a file-size limit (ulimit -f) a write then fails with EFBIG and is
  // reported like a full disk, instead of killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{
      "rotor: compare position encodings (RoPE, sinusoidal, T5 bias, ALiBi, ...) in Transformer "
      "encoder classifiers on long-text classification.\n\nExit codes: 0 ok, 1 error, 2 usage, "
      "130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP after saving a checkpoint."};
  app.require_subcommand(1);
  const CLI::Validator positive(
      [](std::string& v) {
        const bool ok =
            !v.empty() && v.size() < 19 && v.find_first_not_of("0123456789") == std::string::npos && std::stoll(v) > 0;
        return ok ? std::string() : "expected a positive whole number, got " + v;
      },
      "N > 0");

  rotor::TrainRequest train;
  auto* t = app.add_subcommand("train", "Train a model from a YAML config (resumable)");
  t->add_option("config", train.config_path, "YAML config file")->required()->check(CLI::ExistingFile);
  t->add_option("--set", train.overrides, "Override a config key, e.g. --set train.lr=1e-3 (repeatable)");
  t->add_option("--resume", train.resume, "auto (newest valid checkpoint of the run directory) or a checkpoint path");
  t->add_option("--out", train.out_dir, "Run directory (default: <run.out_dir>/<run.name>)");
  t->add_option("--stop-after", train.stop_after, "Checkpoint and exit once this many steps are done (resumable)")
      ->check(positive);

  rotor::EvalRequest eval;
  auto* e = app.add_subcommand("eval", "Evaluate a checkpoint on a split or a file; prints and writes metrics");
  add_checkpoint_argument(e, eval.checkpoint);
  e->add_option("--split", eval.split, "Split of the run's task: val, test, or an extra split (default test)");
  e->add_option("--data", eval.data, "A labelled JSONL/CSV/TSV file to evaluate instead")->check(CLI::ExistingFile);
  e->add_option("--max-len", eval.max_lens,
                "Evaluation window length(s) in tokens, e.g. 512,1024,2048 (length extrapolation; one model load, "
                "one metrics file per length)")
      ->delimiter(',')
      ->check(positive);
  e->add_option("--set", eval.overrides, "Override a config key, e.g. --set model.position.scaling=ntk");
  e->add_option("--output", eval.output,
                "Metrics JSON file (default RUN/eval-<split>[-L<length>][-<--set values>].json, e.g. "
                "eval-test-L2048-ntk4.json)");

  rotor::PredictRequest predict;
  auto* p =
      app.add_subcommand("predict",
                         "Label and class probabilities for every document of a JSONL, CSV or TSV file (with its id: "
                         "data.key_field, or an id field where present)");
  add_checkpoint_argument(p, predict.checkpoint);
  p->add_option("--input", predict.input, "JSONL/CSV/TSV file with the run's text field")
      ->required()
      ->check(CLI::ExistingFile);
  p->add_option("--output", predict.output, "JSONL output (default: stdout)");
  p->add_option("--max-len", predict.max_len, "Window length in tokens")->check(positive);
  p->add_option("--set", predict.overrides, "Override a config key, e.g. --set model.position.scaling=ntk");

  std::string inspect_path;
  auto* i = app.add_subcommand("inspect", "Show a checkpoint: config, step, metrics and parameter table");
  add_checkpoint_argument(i, inspect_path);

  std::string config_path;
  std::vector<std::string> config_overrides;
  bool reference = false, markdown = false;
  auto* c = app.add_subcommand("config", "Print the fully resolved config, or the reference of every key");
  c->add_option("config", config_path, "YAML config file")->check(CLI::ExistingFile);
  c->add_option("--set", config_overrides, "Override a config key (repeatable)");
  c->add_flag("--reference", reference, "Every key with type, default and meaning");
  c->add_flag("--markdown", markdown, "With --reference: as Markdown tables");

  rotor::CompareRequest compare;
  auto* cmp = app.add_subcommand("compare",
                                 "Run a position-encoding study (variants x seeds, length sweep) and "
                                 "write its report; rerunning skips finished runs; under mpirun -np N the ranks "
                                 "share the runs");
  cmp->add_option("spec", compare.spec, "Study spec (YAML), e.g. configs/compare/quick.yaml")->check(CLI::ExistingFile);
  cmp->add_option("--out", compare.out_dir, "Study directory (default: the spec's out_dir, else runs/compare/<spec>)");
  cmp->add_option("--jobs", compare.jobs, "Runs trained at once, each in its own process (default 1)");
  cmp->add_option("--only", compare.only, "Train and evaluate this run alone (<variant>-seed<seed>), no report");
  cmp->add_option("--task", compare.task,
                  "A suite spec (tasks:): run this task alone as a study of its own (--out is then its folder)");
  cmp->add_option("--report", compare.report_dir, "Rebuild the report of a study directory from finished runs")
      ->excludes("spec");
  for (int a = 0; a < argc; ++a) compare.command += (a ? " " : "") + std::string(argv[a]);

  rotor::RopeDecayRequest decay;
  auto* analyze = app.add_subcommand("analyze", "Analyses that need no training");
  analyze->require_subcommand(1);
  auto* rd = analyze->add_subcommand("rope-decay", "RoPE long-term decay (RoFormer Figure 2): print and plot");
  rd->add_option("--head-dim", decay.head_dim, "Rotated dims per head (default 128)");
  rd->add_option("--base", decay.base, "RoPE base (default 10000)");
  rd->add_option("--max-distance", decay.max_distance, "Keys at positions 0..N (default 256)");
  rd->add_option("--query-index", decay.query_index, "Position of the query (default 0)");
  rd->add_option("--out", decay.out, "Plot file: FILE.png and FILE.svg, data in FILE.json");

  if (argc > 1 && argv[1][0] != '-') {  // CLI11 would only say the word was not expected
    std::string names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
      known = known || sub->get_name() == argv[1];
    }
    if (!known) {
      fmt::print(stderr, "rotor: unknown command '{}' (commands: {}; see rotor --help)\n", argv[1], names);
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help is a success; anything else is a usage error
  }
  try {
    if (t->parsed()) return rotor::train(train);
    if (e->parsed()) return rotor::eval_command(eval);
    if (p->parsed()) return rotor::predict_command(predict);
    if (i->parsed()) return rotor::inspect_command(inspect_path);
    if (cmp->parsed()) {
      if (compare.spec.empty() == compare.report_dir.empty()) {
        fmt::print(stderr, "rotor compare: give a SPEC file or --report DIR\n");
        return 2;
      }
      return rotor::compare_command(compare);
    }
    if (rd->parsed()) return rotor::rope_decay_command(decay);
    if (!reference && config_path.empty()) {
      fmt::print(stderr, "rotor config: give a CONFIG file or --reference\n");
      return 2;
    }
    return rotor::config_command(config_path, config_overrides, reference, markdown);
  } catch (const rotor::Error& err) {
    fmt::print(stderr, "\nerror: {}\n", err.what());
    return 1;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr,
               "\nerror: out of memory: this config needs more memory than the machine has; lower "
               "model.d_model, model.layers, data.batch_size or data.max_len\n");
    return 1;
  } catch (const std::filesystem::filesystem_error& err) {  // a path the user gave: not unexpected
    fmt::print(stderr, "\nerror: {}: {}\n", err.path1().string(), err.code().message());
    return 1;
  } catch (const std::exception& err) {
    fmt::print(stderr, "\nerror (unexpected): {}\n", err.what());
    return 1;
  }
}

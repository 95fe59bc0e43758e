#pragma once
// A position-encoding study (`rotor compare SPEC.yaml`): a base run config,
// the variants to compare (each a set of config overrides), the seeds, and
// the evaluation lengths and RoPE scalings of the length sweep.
//
//   base: ../listops-512/base.yaml     # relative to the spec file (or tasks:, see StudySuite)'s folder
//   out_dir: ../../runs/compare/l512   # optional, relative to it too; --out wins
//   set: {train.max_steps: 600}        # optional: overrides for every run
//   seeds: [1, 2, 3]                   # run.seed and data.seed of each run
//   variants:
//     - rope                           # a preset (see variant_presets.h) ...
//     - name: rope-base500             # ... or a name and its overrides
//       set: {model.position.type: rope, model.position.base: 500}
//   evaluation:
//     splits: [test]                   # held-out splits of the task; all: test and every
//                                      # longer test split (test_128, ...) the task has
//     lengths: [512, 1024, 2048]       # evaluation window lengths (tokens)
//     scalings: [none, linear, ntk, yarn]  # rope variants, beyond max_len
//     stride: 64                       # language models: a sliding window scoring 64 new
//                                      # tokens per window (default: non-overlapping)
//     max_tokens: 65536                # language models: score the first 65536 targets of
//                                      # each split (the same at every length dividing it)
//     thresholds: [5.5, 5.0]           # steps for the validation curve to reach each
//                                      # (a loss falls to it, an accuracy rises to it): convergence.h
//   comparisons:                       # optional: planned comparisons, a smaller Holm family
//     against: none                    # each variant against this one alone (default: every pair)
//
// Parsing is strict: unknown keys, unknown presets, bad seeds or lengths and
// variant overrides the run config rejects are errors naming the spec file,
// line and key, raised before anything runs.
#include <cstdint>
#include <string>
#include <vector>

#include "trainers/config/config.h"
#include "trainers/study/length_sweep.h"

namespace rotor {

struct StudyVariant {
  std::string name;
  std::vector<std::string> overrides{};  // "key=value", applied after the study's `set`
  Config config{};                       // the resolved config of the first seed
};

struct StudyEvaluation {
  std::vector<std::string> splits{"test"};
  std::vector<int64_t> lengths;                   // ascending; empty: see sweep_plan
  std::vector<std::string> scalings{unscaled()};  // always starts with unscaled() ("none")
  int64_t stride = 0;                             // language models: new tokens per window; 0: the window length
  int64_t max_tokens = 0;                         // language models: targets scored per split; 0: all
  std::vector<double> thresholds;                 // of the validation curve, for steps to threshold
};

struct StudyRun {
  std::string variant;
  uint64_t seed = 0;
  std::string id;  // "<variant>-seed<seed>", also the run directory's name
};

struct StudySpec {
  std::string task;                    // its name in a suite of tasks (`tasks:`); empty for a plain study
  std::string path;                    // the spec file
  std::string text;                    // its contents, copied into the report
  std::string base;                    // the base run config (absolute path)
  std::string out_dir;                 // from the spec (absolute); empty: runs/compare/<spec stem>
  std::vector<std::string> overrides;  // `set` of the spec (paths in it made absolute)
  std::vector<uint64_t> seeds;
  std::vector<StudyVariant> variants;
  StudyEvaluation evaluation;
  std::string comparisons_against;  // comparisons.against: a variant's name; empty: every pair is compared

  // Every (variant, seed), variants in spec order, seeds inner.
  std::vector<StudyRun> runs() const;
  const StudyVariant& variant(const std::string& name) const;
  // The overrides of one run: the study's, the variant's, then seed and name.
  std::vector<std::string> run_overrides(const StudyRun& run) const;
};

// A spec with `tasks:` (a mapping of task names to base configs, or to
// {base: CONFIG, set: {...}} for overrides of that task alone, applied after
// the spec's `set`) instead of `base:` is a suite: one study per task, with
// the same set, seeds, variants
// and evaluation, each in out_dir/<task>, plus a report across the tasks
// (study_suite.h). A plain spec is a suite of one study whose task is "".
struct StudySuite {
  std::string path, text;
  std::string out_dir;             // from the spec; empty: runs/compare/<spec stem>
  std::vector<StudySpec> studies;  // in spec order

  bool has_tasks() const { return !studies.empty() && !studies.front().task.empty(); }
  // Throws ConfigError naming the tasks when there is no such task.
  const StudySpec& study(const std::string& task) const;
};

StudySuite parse_study_suite(const std::string& path);
// A plain spec; a suite is refused with a message saying how to run it.
StudySpec parse_study_spec(const std::string& path);

// The length-sweep points of a variant: every split x length with scaling
// "none", plus the spec's other scalings for rope variants at lengths beyond
// their training length. Without lengths in the spec, each split is evaluated
// with windows that hold its longest sample where a generated task knows it
// (test_256: 256), else with the training length.
std::vector<SweepCell> sweep_plan(const StudySpec& spec, const Config& variant_config);

}  // namespace rotor

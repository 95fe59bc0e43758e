#include "trainers/study/length_sweep.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <optional>

#include <fmt/format.h>

#include "datasets/dataset.h"
#include "storage/checkpoint_error.h"
#include "trainers/run/run_directory.h"
#include "trainers/study/best_checkpoint.h"
#include "trainers/training/restored_evaluation.h"
#include "trainers/training/restored_model.h"

namespace rotor {
namespace {

std::string number_text(double v) { return fmt::format("{:.17g}", v); }

// The config overrides that evaluate a rope model trained on `trained`
// tokens at `length` with `scaling`.
std::vector<std::string> scaling_overrides(const std::string& scaling, int64_t length, int64_t trained) {
  if (scaling == unscaled()) return {};
  return {"model.position.scaling=" + scaling,
          "model.position.scaling_factor=" + number_text(static_cast<double>(length) / static_cast<double>(trained)),
          "model.position.original_max_len=" + std::to_string(trained)};
}

SweepCell language_model_cell(const RestoredModel& r, const Dataset& data, const std::string& checkpoint,
                              SweepCell cell) {
  const LanguageModelEvaluation e = evaluate_language_model_at_length(r, data.split(cell.split), r.header.config.data,
                                                                      cell.stride, cell.max_tokens, checkpoint);
  cell.available = true;
  cell.scores = e.scores;
  cell.documents = static_cast<int64_t>(e.window_nats.size());
  cell.window_nats = e.window_nats;
  cell.window_tokens = e.window_tokens;
  return cell;
}

// A sequence task's cell: per sample its units as the row's evidence_metric counts them (unit_evidence.h).
SweepCell sample_cell(const RestoredModel& r, const Dataset& data, const std::string& checkpoint, SweepCell cell) {
  const TargetedEvaluation e = evaluate_targeted_at_length(r, data.split(cell.split), r.header.config.data, checkpoint);
  const bool by_token = objective_spec(r.header.config.train.objective).evidence_metric == "token_accuracy";
  cell.available = true;
  cell.scores = e.scores;
  cell.documents = static_cast<int64_t>(e.samples.targets.size());
  for (size_t i = 0; i < e.samples.targets.size(); ++i) {
    cell.sample_numerators.push_back(by_token ? static_cast<double>(e.samples.correct[i]) : e.samples.right(i));
    cell.sample_denominators.push_back(by_token ? static_cast<double>(e.samples.targets[i]) : 1.0);
  }
  return cell;
}

// `trained`: the training window length the scaling factor is relative to.
SweepCell evaluate_cell(const std::string& checkpoint, const Dataset& data, int64_t trained, SweepCell cell) {
  std::optional<RestoredModel> r;
  try {
    r.emplace(restore_model(checkpoint, scaling_overrides(cell.scaling, cell.length, trained)));
    DataConfig& dc = r->header.config.data;
    dc.eval_max_len = cell.length;
    // A copy: when the evaluation throws, the n/a cell below still names its split and scaling.
    if (cell.stream_windows) return language_model_cell(*r, data, checkpoint, cell);
    if (objective_spec(r->header.config.train.objective).data == ObjectiveData::per_token_targets)
      return sample_cell(*r, data, checkpoint, cell);
    const Evaluation e = evaluate_classifier_at_length(*r, data.split(cell.split), dc, "the length sweep", checkpoint);
    cell.predictions = predicted_classes(e.scores);
    cell.labels = e.scores.labels;
    cell.available = true;
    cell.scores = declared_scores(objective_spec(r->header.config.train.objective), e.metrics.scores());
    cell.documents = e.metrics.count;
  } catch (const ModelConfigError& e) {  // the model cannot take this length or scaling
    cell.available = false;
    cell.reason = e.what();
  } catch (const ConfigError& e) {
    cell.available = false;
    cell.reason = e.what();
  }
  return cell;
}

}  // namespace

namespace {

// A cell that needs no evaluation: n/a, or measured with its predictions.
bool complete(const SweepCell& c) {
  return !c.available || !c.predictions.empty() || !c.window_nats.empty() || !c.sample_numerators.empty();
}

}  // namespace

std::vector<SweepCell> missing_points(const std::string& run_dir, const std::vector<SweepCell>& plan) {
  const std::vector<SweepCell> cells = RunDirectory(run_dir).read_length_sweep().cells;
  std::vector<SweepCell> missing;
  for (const SweepCell& p : plan)
    if (std::none_of(cells.begin(), cells.end(), [&](const SweepCell& c) {
          return c.same_point(p) && c.stride == p.stride && c.max_tokens == p.max_tokens && complete(c);
        }))
      missing.push_back(p);
  return missing;
}

std::optional<SweepCell> own_length_point(const std::vector<SweepCell>& plan, const Config& config,
                                          const std::string& split) {
  std::vector<SweepCell> own;
  std::copy_if(plan.begin(), plan.end(), std::back_inserter(own),
               [&](const SweepCell& p) { return p.split == split && p.scaling == unscaled(); });
  if (own.size() != 1 || own[0].stream_windows) return std::nullopt;
  // A sequence task's samples are never cut; a classifier's documents are, beyond data.eval_max_len.
  const bool documents = objective_spec(config.train.objective).data == ObjectiveData::labelled_documents;
  if (documents && eval_max_len(config.data) < own[0].length) return std::nullopt;
  return own[0];
}

std::optional<SplitScores> sweep_held_out_split(const std::string& run_dir, const std::vector<SweepCell>& plan,
                                                const Config& config, const std::string& split,
                                                const std::string& checkpoint, const Dataset& data) {
  const std::optional<SweepCell> point = own_length_point(plan, config, split);
  if (!point) return std::nullopt;
  SweepCell cell;
  try {
    cell = evaluate_cell(checkpoint, data, config.data.max_len, *point);
  } catch (const CheckpointError&) {  // NaN scores: the trainer records the run, the sweep then names the fault
    return std::nullopt;
  }
  if (!cell.available) return std::nullopt;
  const RunDirectory run(run_dir);
  LengthSweep sweep = run.read_length_sweep();
  sweep.cells.erase(
      std::remove_if(sweep.cells.begin(), sweep.cells.end(), [&](const SweepCell& c) { return c.same_point(cell); }),
      sweep.cells.end());
  sweep.cells.push_back(cell);
  sweep.checkpoint = checkpoint;
  run.write_length_sweep(sweep);
  return cell.scores;
}

void run_length_sweep(const std::string& run_dir, const std::vector<SweepCell>& plan,
                      const std::function<void(size_t, size_t, const SweepCell&)>& on_cell) {
  const std::vector<SweepCell> todo = missing_points(run_dir, plan);
  if (todo.empty()) return;
  const RunDirectory run(run_dir);
  LengthSweep sweep = run.read_length_sweep();
  std::vector<SweepCell>& cells = sweep.cells;
  // Incomplete cells and those measured with another stride or token budget are evaluated again.
  const auto stale = [&](const SweepCell& c) {
    return !complete(c) || std::any_of(todo.begin(), todo.end(), [&](const SweepCell& p) { return p.same_point(c); });
  };
  cells.erase(std::remove_if(cells.begin(), cells.end(), stale), cells.end());
  const BestCheckpoint best = open_best_checkpoint(run_dir);
  sweep.checkpoint = best.path;
  for (size_t i = 0; i < todo.size(); ++i) {
    cells.push_back(evaluate_cell(best.path, best.data, best.training_length, todo[i]));
    run.write_length_sweep(sweep);
    if (on_cell) on_cell(i + 1, todo.size(), cells.back());
  }
}

}  // namespace rotor

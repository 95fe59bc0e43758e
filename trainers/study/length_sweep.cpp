#include "trainers/study/length_sweep.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include <fmt/format.h>

#include "datasets/dataset.h"
#include "trainers/study/best_checkpoint.h"
#include "trainers/study/study_files.h"
#include "trainers/training/evaluator.h"
#include "trainers/training/restored_model.h"

namespace rotor {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

json to_json(const SweepCell& c) {
  json j{{"split", c.split}, {"length", c.length}, {"scaling", c.scaling}, {"available", c.available}};
  if (c.available) {
    j["accuracy"] = c.accuracy;
    j["macro_f1"] = c.macro_f1;
    j["loss"] = c.loss;
    j["documents"] = c.documents;
    j["predictions"] = c.predictions;
    j["labels"] = c.labels;
  } else {
    j["reason"] = c.reason;
  }
  return j;
}

std::string number_text(double v) { return fmt::format("{:.17g}", v); }

// The config overrides that evaluate a rope model trained on `trained`
// tokens at `length` with `scaling`.
std::vector<std::string> scaling_overrides(const std::string& scaling, int64_t length, int64_t trained) {
  if (scaling == "none") return {};
  return {"model.position.scaling=" + scaling,
          "model.position.scaling_factor=" + number_text(static_cast<double>(length) / static_cast<double>(trained)),
          "model.position.original_max_len=" + std::to_string(trained)};
}

// `trained`: the training window length the scaling factor is relative to.
SweepCell evaluate_cell(const std::string& checkpoint, const Dataset& data, int64_t trained, SweepCell cell) {
  std::optional<RestoredModel> r;
  try {
    r.emplace(restore_model(checkpoint, scaling_overrides(cell.scaling, cell.length, trained)));
    DataConfig& dc = r->header.config.data;
    dc.eval_max_len = cell.length;
    const Evaluation e = evaluate(*r->model, data.split(cell.split), dc);
    const ClassificationMetrics& m = e.metrics;
    cell.predictions = predicted_classes(e.scores);
    cell.labels = e.scores.labels;
    cell.available = true;
    cell.accuracy = m.accuracy;
    cell.macro_f1 = m.macro_f1;
    cell.loss = m.loss;
    cell.documents = m.count;
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

std::vector<SweepCell> read_length_sweep(const std::string& run_dir) {
  const fs::path path = fs::path(run_dir) / "length_sweep.json";
  std::vector<SweepCell> cells;
  if (!fs::exists(path)) return cells;
  const json j = read_json_file(path.string());
  try {
    for (const json& c : j.at("cells")) {
      SweepCell cell;
      cell.split = c.at("split").get<std::string>();
      cell.length = c.at("length").get<int64_t>();
      cell.scaling = c.at("scaling").get<std::string>();
      cell.available = c.at("available").get<bool>();
      if (cell.available) {
        cell.accuracy = c.at("accuracy").get<double>();
        cell.macro_f1 = c.at("macro_f1").get<double>();
        cell.loss = c.at("loss").get<double>();
        cell.documents = c.at("documents").get<int64_t>();
        if (c.contains("predictions")) {
          cell.predictions = c.at("predictions").get<std::vector<int32_t>>();
          cell.labels = c.at("labels").get<std::vector<int32_t>>();
        }
      } else {
        cell.reason = c.at("reason").get<std::string>();
      }
      cells.push_back(cell);
    }
  } catch (const json::exception& e) {
    throw ConfigError(path.string() + ": not a length sweep file (" + e.what() + "); delete it to evaluate again");
  }
  return cells;
}

namespace {

// A cell that needs no evaluation: n/a, or measured with its predictions.
bool complete(const SweepCell& c) { return !c.available || !c.predictions.empty(); }

}  // namespace

std::vector<SweepCell> missing_points(const std::string& run_dir, const std::vector<SweepCell>& plan) {
  const std::vector<SweepCell> cells = read_length_sweep(run_dir);
  std::vector<SweepCell> missing;
  for (const SweepCell& p : plan)
    if (std::none_of(cells.begin(), cells.end(), [&](const SweepCell& c) { return c.same_point(p) && complete(c); }))
      missing.push_back(p);
  return missing;
}

void run_length_sweep(const std::string& run_dir, const std::vector<SweepCell>& plan,
                      const std::function<void(size_t, size_t, const SweepCell&)>& on_cell) {
  const std::vector<SweepCell> todo = missing_points(run_dir, plan);
  if (todo.empty()) return;
  std::vector<SweepCell> cells = read_length_sweep(run_dir);
  cells.erase(std::remove_if(cells.begin(), cells.end(), [](const SweepCell& c) { return !complete(c); }), cells.end());
  const BestCheckpoint best = open_best_checkpoint(run_dir);
  for (size_t i = 0; i < todo.size(); ++i) {
    cells.push_back(evaluate_cell(best.path, best.data, best.training_length, todo[i]));
    json out{{"checkpoint", best.path}, {"cells", json::array()}};
    for (const SweepCell& c : cells) out["cells"].push_back(to_json(c));
    write_json_file((fs::path(run_dir) / "length_sweep.json").string(), out);
    if (on_cell) on_cell(i + 1, todo.size(), cells.back());
  }
}

}  // namespace rotor

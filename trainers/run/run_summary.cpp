#include "trainers/run/run_summary.h"

#include "storage/checkpoint_fs.h"
#include "trainers/run/json_file.h"

namespace rotor {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The held-out splits of a summary written before "scores", named by its
// "<split>_accuracy" keys, in the file's order.
std::vector<std::string> summarized_splits(const JsonFields& j) {
  const std::string suffix = "_accuracy";
  std::vector<std::string> splits;
  for (const auto& item : j.items())
    if (ends_with(item.key(), suffix)) splits.push_back(item.key().substr(0, item.key().size() - suffix.size()));
  return splits;
}

}  // namespace

void to_json(JsonFields& j, const RunSummary& s) {
  j = {{"run", s.run},
       {"steps", s.steps},
       {"epochs", s.epochs},
       {"best_step", s.best_step},
       {"best_metric", s.best_metric},
       {"best_value", s.best_value},
       {"parameters", s.parameters},
       {"position", s.position},
       {"elapsed_s", s.elapsed_s},
       {"tokens_per_s", s.tokens_per_s},
       {"build", s.build}};
  if (!s.init_from.checkpoint.empty()) {
    j["init_from"] = s.init_from.checkpoint;
    j["init_from_checksum"] = s.init_from.checksum;
  }
  JsonFields& scores = j["scores"] = JsonFields::object();
  for (const auto& [split, split_scores] : s.splits) scores[split] = scores_json(split_scores);
}

void from_json(const JsonFields& j, RunSummary& s) {
  s.run = j.value("run", "");
  s.steps = j.at("steps").get<int64_t>();
  s.epochs = j.value("epochs", int64_t{0});
  s.best_step = j.at("best_step").get<int64_t>();
  s.best_metric = j.value("best_metric", "");
  s.best_value = j.contains("best_value") ? number_or_nan(j, "best_value") : 0.0;
  s.parameters = j.at("parameters").get<int64_t>();
  s.position = j.value("position", "");
  s.elapsed_s = j.at("elapsed_s").get<double>();
  s.tokens_per_s = j.at("tokens_per_s").get<double>();
  s.init_from = {j.value("init_from", ""), j.value("init_from_checksum", "")};
  s.build = j.value("build", "");
  s.splits.clear();
  if (j.contains("scores")) {
    for (const auto& item : j.at("scores").items()) s.splits.emplace_back(item.key(), scores_from_json(item.value()));
    return;
  }
  for (const std::string& split : summarized_splits(j))
    s.splits.emplace_back(split, record_scores(j, "scores", split + "_"));
}

RunSummary read_run_summary(const std::string& path) {
  return read_record_file<RunSummary, JsonFields>(path, "a run summary");
}

void write_run_summary(const std::string& path, const RunSummary& summary) {
  checkpoint_fs::write_file_atomically(path, compact_json(summary) + "\n");
}

std::optional<int64_t> summarized_steps(const std::string& path) {
  try {
    const JsonFields summary = read_ordered_json_file(path);
    const JsonFields& steps = summary.at("steps");
    if (!steps.is_number_integer()) return std::nullopt;
    return steps.get<int64_t>();
  } catch (const RunFileError&) {  // missing or not JSON
    return std::nullopt;
  } catch (const nlohmann::json::exception&) {  // no "steps"
    return std::nullopt;
  }
}

}  // namespace rotor

#include "trainers/training/training_checkpoint.h"

#include <algorithm>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "engine/parallel.h"
#include "trainers/config/config_loader.h"
#include "trainers/training/data_dimensions.h"

namespace rotor {
namespace {

const std::string kModel = "model/", kOptimizer = "optimizer/", kDataSources = "data/sources";

template <class Map>
const typename Map::mapped_type& need(const Map& map, const std::string& key, const std::string& path) {
  const auto it = map.find(key);
  if (it == map.end()) throw CheckpointError(path + ": missing entry '" + key + "' (not a rotor training checkpoint?)");
  return it->second;
}

// The tokenizer and the labels size the model; a forged count (a million labels) would build a model of gigabytes
// before load_parameters compared the shapes, so they are compared with the stored tensor first.
void require_stored_rows(const CheckpointContents& c, const std::string& parameter, int64_t expected,
                         const std::string& what, const std::string& path) {
  const auto it = c.tensors.find(kModel + parameter);
  if (it == c.tensors.end() || it->second.rank() == 0 || it->second.size(0) == expected) return;
  throw CheckpointError(
      fmt::format("{}: {} number {} but the stored parameter {} has {} rows (forged or damaged; no model was built)",
                  path, what, expected, parameter, it->second.size(0)));
}

// The training state's fields and their checkpoint keys: snapshot() writes and
// read_header() reads exactly these. Randomness has no entry: dropout and the
// data order are keyed by the config's seeds and state/step, state/epoch.
// `min`: the least value a run writes (every metric and sum is >= 0); a
// smaller one is forged or damaged, and would fail deep inside the trainer.
// No run reaches kMostState steps, tokens or seconds; a step near 2^63 made
// the trainer fail on an overflow naming neither the file nor the field.
constexpr int64_t kMostState = int64_t{1} << 53;  // the integers a double holds exactly (ETAs, plots)
template <class T>
struct StateField {
  const char* key;
  T& (*member)(TrainingState&);
  T min = 0;
};
const StateField<int64_t> kIntegerFields[] = {
    {"state/step", [](TrainingState& s) -> int64_t& { return s.step; }},
    {"state/epoch", [](TrainingState& s) -> int64_t& { return s.sampler.epoch; }},
    {"state/cursor", [](TrainingState& s) -> int64_t& { return s.sampler.cursor; }},
    {"state/best_step", [](TrainingState& s) -> int64_t& { return s.best_step; }, -1},
    {"state/stale_evals", [](TrainingState& s) -> int64_t& { return s.stale_evals; }},
    {"state/seen", [](TrainingState& s) -> int64_t& { return s.seen; }},
    {"state/correct", [](TrainingState& s) -> int64_t& { return s.correct; }},
    {"state/tokens", [](TrainingState& s) -> int64_t& { return s.tokens; }},
};
const StateField<double> kRealFields[] = {
    {"state/best_metric", [](TrainingState& s) -> double& { return s.best_metric; }},
    {"state/loss_sum", [](TrainingState& s) -> double& { return s.loss_sum; }},
    {"state/elapsed_s", [](TrainingState& s) -> double& { return s.elapsed_s; }},
};

template <class Map, class T>
void read_field(const Map& map, const StateField<T>& f, const std::string& path, TrainingState& state) {
  const T v = need(map, f.key, path);
  if (v < f.min)  // false for NaN: best_metric before any evaluation
    throw CheckpointError(
        fmt::format("{}: {} is {}, expected >= {} (forged or damaged checkpoint)", path, f.key, v, f.min));
  if (v > static_cast<T>(kMostState))
    throw CheckpointError(fmt::format("{}: {} is {}, expected at most 2^53 = {} (forged or damaged checkpoint)", path,
                                      f.key, v, kMostState));
  f.member(state) = v;
}

}  // namespace

CheckpointContents snapshot(const Config& config, const Dataset& data, const Model& model, const Optimizer& optimizer,
                            const TrainingState& s) {
  CheckpointContents c;
  c.texts["config"] = dump_config(config);
  c.texts["labels"] = data.labels.save();
  // Absent for a generated task, as in checkpoints from before it was kept.
  if (!data.sources.empty()) c.texts[kDataSources] = fingerprints_text(data.sources);
  const std::string tok = data.tokenizer->save();
  c.blobs["tokenizer"] = std::vector<uint8_t>(tok.begin(), tok.end());

  const ParameterStore& params = model.parameters();
  for (const ParameterInfo& p : params.infos()) c.tensors[kModel + p.name] = params.value(params.id(p.name)).clone();
  const OptimizerState opt = optimizer.export_state();
  for (const auto& [k, t] : opt.tensors) c.tensors[kOptimizer + k] = t;
  for (const auto& [k, v] : opt.scalars) c.reals[kOptimizer + k] = v;

  TrainingState state = s;
  for (const auto& f : kIntegerFields) c.integers[f.key] = f.member(state);
  for (const auto& f : kRealFields) c.reals[f.key] = f.member(state);
  c.integers["run/threads"] = num_threads();
  return c;
}

CheckpointHeader read_header(const CheckpointContents& c, const std::string& path,
                             const std::vector<std::string>& overrides) {
  CheckpointHeader h;
  try {
    StoredConfig stored = parse_stored_config(need(c.texts, "config", path), path + " (stored config)", overrides);
    h.config = std::move(stored.config);
    h.trained_model = std::move(stored.trained.model);
  } catch (const StoredConfigError& e) {
    throw CheckpointError(std::string(e.what()));
  }
  const auto& tok = need(c.blobs, "tokenizer", path);
  h.tokenizer.assign(tok.begin(), tok.end());
  std::istringstream labels(need(c.texts, "labels", path));
  for (std::string line; std::getline(labels, line);)
    if (!line.empty()) h.labels.push_back(line);
  try {
    h.loaded_tokenizer = load_tokenizer(h.tokenizer);
  } catch (const Error& e) {
    throw CheckpointError(
        fmt::format("{}: its 'tokenizer' entry cannot be loaded: {} (forged or damaged checkpoint)", path, e.what()));
  }
  set_data_dimensions(h.config.model, *h.loaded_tokenizer, static_cast<int64_t>(h.labels.size()));
  set_data_dimensions(h.trained_model, *h.loaded_tokenizer, static_cast<int64_t>(h.labels.size()));
  require_stored_rows(c, "embed.tokens.weight", h.trained_model.vocab_size, "its tokenizer's tokens", path);
  require_stored_rows(c, "head.bias", h.trained_model.num_classes, "its labels", path);
  for (const auto& f : kIntegerFields) read_field(c.integers, f, path, h.state);
  for (const auto& f : kRealFields) read_field(c.reals, f, path, h.state);
  if (h.state.best_step > h.state.step)  // resume and eval would look for a checkpoint that cannot exist
    throw CheckpointError(fmt::format("{}: state/best_step is {}, after state/step {} (forged or damaged checkpoint)",
                                      path, h.state.best_step, h.state.step));
  h.threads = need(c.integers, "run/threads", path);
  if (const auto sources = c.texts.find(kDataSources); sources != c.texts.end()) {
    try {
      h.data_sources = parse_fingerprints(sources->second, kDataSources);
    } catch (const DataError& e) {
      throw CheckpointError(path + ": " + e.what());
    }
  } else if (is_generated_task(h.config.data.task)) {
    h.data_sources.emplace();  // no files to record
  }
  return h;
}

void load_parameters(const CheckpointContents& c, const std::string& path, Model& model) {
  ParameterStore& params = model.parameters();
  for (const ParameterInfo& p : params.infos()) {
    const Tensor& saved = need(c.tensors, kModel + p.name, path);
    if (saved.shape() != p.shape)
      throw CheckpointError(path + ": parameter " + p.name + " has shape " + to_string(saved.shape()) +
                            ", the model expects " + to_string(p.shape));
    Tensor dst = params.value(params.id(p.name));
    dst.copy_from(saved);
  }
}

void load_optimizer(const CheckpointContents& c, const std::string& path, Optimizer& optimizer) {
  OptimizerState state;
  for (const auto& [k, t] : c.tensors)
    if (k.rfind(kOptimizer, 0) == 0) state.tensors[k.substr(kOptimizer.size())] = t;
  for (const auto& [k, v] : c.reals)
    if (k.rfind(kOptimizer, 0) == 0) state.scalars[k.substr(kOptimizer.size())] = v;
  try {
    optimizer.import_state(state);
  } catch (const Error& e) {
    throw CheckpointError(path + ": optimizer state does not fit this run: " + e.what());
  }
}

int64_t recorded_best_step(const std::string& checkpoint) {
  const auto* field = std::find_if(std::begin(kIntegerFields), std::end(kIntegerFields),
                                   [](const auto& f) { return std::string(f.key) == "state/best_step"; });
  TrainingState state;
  read_field(read_checkpoint(checkpoint).integers, *field, checkpoint, state);
  return state.best_step;
}

ResolvedCheckpoint resolve_training_checkpoint(const std::string& given, std::vector<std::string>* warnings) {
  return resolve_checkpoint(given, warnings, recorded_best_step);
}

}  // namespace rotor

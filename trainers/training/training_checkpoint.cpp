#include "trainers/training/training_checkpoint.h"

#include <sstream>

#include "engine/parallel.h"
#include "trainers/config/config_loader.h"

namespace rotor {
namespace {

const std::string kModel = "model/", kOptimizer = "optimizer/";

template <class Map>
const typename Map::mapped_type& need(const Map& map, const std::string& key, const std::string& path) {
  const auto it = map.find(key);
  if (it == map.end()) throw CheckpointError(path + ": missing entry '" + key + "' (not a rotor training checkpoint?)");
  return it->second;
}

}  // namespace

CheckpointContents snapshot(const Config& config, const Dataset& data, const EncoderClassifier& model,
                            const Optimizer& optimizer, const TrainingState& s) {
  CheckpointContents c;
  c.texts["config"] = dump_config(config);
  c.texts["labels"] = data.labels.save();
  const std::string tok = data.tokenizer->save();
  c.blobs["tokenizer"] = std::vector<uint8_t>(tok.begin(), tok.end());
  c.texts["rope/layout"] = config.model.position.type == "rope" ? option_name(config.model.position.layout) : "";
  c.reals["rope/base"] = config.model.position.base;

  const ParameterStore& params = model.parameters();
  for (const ParameterInfo& p : params.infos()) c.tensors[kModel + p.name] = params.value(params.id(p.name)).clone();
  const OptimizerState opt = optimizer.export_state();
  for (const auto& [k, t] : opt.tensors) c.tensors[kOptimizer + k] = t;
  for (const auto& [k, v] : opt.scalars) c.reals[kOptimizer + k] = v;

  c.integers["state/step"] = s.step;
  c.integers["state/epoch"] = s.sampler.epoch;
  c.integers["state/cursor"] = s.sampler.cursor;
  c.reals["state/best_metric"] = s.best_metric;
  c.integers["state/best_step"] = s.best_step;
  c.integers["state/stale_evals"] = s.stale_evals;
  c.reals["state/loss_sum"] = s.loss_sum;
  c.integers["state/seen"] = s.seen;
  c.integers["state/correct"] = s.correct;
  c.integers["state/tokens"] = s.tokens;
  c.reals["state/elapsed_s"] = s.elapsed_s;
  // The random streams are counter-based: their whole state is the seeds and the step.
  c.integers["rng/seed"] = static_cast<int64_t>(config.run.seed);
  c.integers["rng/data_seed"] = static_cast<int64_t>(config.data.seed);
  c.integers["rng/dropout_step"] = s.step;
  c.integers["run/threads"] = num_threads();
  return c;
}

CheckpointHeader read_header(const CheckpointContents& c, const std::string& path) {
  CheckpointHeader h;
  try {
    h.config = parse_config_text(need(c.texts, "config", path), path + " (stored config)");
  } catch (const ConfigError& e) {
    throw CheckpointError(std::string(e.what()));
  }
  const auto& tok = need(c.blobs, "tokenizer", path);
  h.tokenizer.assign(tok.begin(), tok.end());
  std::istringstream labels(need(c.texts, "labels", path));
  for (std::string line; std::getline(labels, line);)
    if (!line.empty()) h.labels.push_back(line);
  TrainingState& s = h.state;
  s.step = need(c.integers, "state/step", path);
  s.sampler.epoch = need(c.integers, "state/epoch", path);
  s.sampler.cursor = need(c.integers, "state/cursor", path);
  s.best_metric = need(c.reals, "state/best_metric", path);
  s.best_step = need(c.integers, "state/best_step", path);
  s.stale_evals = need(c.integers, "state/stale_evals", path);
  s.loss_sum = need(c.reals, "state/loss_sum", path);
  s.seen = need(c.integers, "state/seen", path);
  s.correct = need(c.integers, "state/correct", path);
  s.tokens = need(c.integers, "state/tokens", path);
  s.elapsed_s = need(c.reals, "state/elapsed_s", path);
  h.threads = need(c.integers, "run/threads", path);
  return h;
}

void load_parameters(const CheckpointContents& c, const std::string& path, EncoderClassifier& model) {
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

}  // namespace rotor

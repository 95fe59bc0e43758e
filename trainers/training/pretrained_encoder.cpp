#include "trainers/training/pretrained_encoder.h"

#include <filesystem>
#include <optional>
#include <vector>

#include <fmt/core.h>

#include "models/position_encoding.h"
#include "storage/checkpoint_directory.h"
#include "trainers/config/config_schema.h"
#include "trainers/run/run_directory.h"
#include "trainers/run/run_lock.h"

namespace rotor {
namespace {

// The keys whose values decide the encoder's parameters or what they compute:
// a fine-tune keeps the source's.
const char* const kEncoderKeys[] = {"model.d_model",   "model.layers",     "model.heads",
                                    "model.d_ff",      "model.norm",       "model.position.type",
                                    "model.attention", "model.activation", "model.embedding_scale"};

std::string value_text(const std::string& key, const Config& config) {
  YAML::Emitter out;
  out << find_option(key)->get(config);
  return out.c_str();
}

void require_same_encoder(const Config& source, const Config& run, const std::string& checkpoint) {
  for (const char* key : kEncoderKeys) {
    const std::string was = value_text(key, source), is = value_text(key, run);
    if (was != is)
      throw ConfigError(
          fmt::format("model.init_from: {} is {} in the pre-trained model {} but {} in this run; a fine-tune keeps the "
                      "pre-trained encoder's shape and kind (set {}: {})",
                      key, was, checkpoint, is, key, was));
  }
}

// The run tokenizes with the source's tokenizer: a data.tokenizer that names another kind is a mistake.
void require_same_tokenizer(const Config& run, const Tokenizer& source, const std::string& checkpoint) {
  if (run.data.tokenizer == TokenizerKind::automatic || option_name(run.data.tokenizer) == source.name()) return;
  throw ConfigError(fmt::format(
      "data.tokenizer: this run sets {} but the pre-trained model {} (model.init_from) was trained with the {} "
      "tokenizer, which a fine-tune uses for its data so that token ids match the embeddings; leave data.tokenizer "
      "empty or set it to {}",
      option_name(run.data.tokenizer), checkpoint, source.name(), source.name()));
}

// "model.position.max_len 512 (pre-trained) / 128 (this run)" for each position key that differs.
std::string differing_position_keys(const ModelConfig& source, const ModelConfig& run) {
  std::string list;
  for (const PositionOption& o : position_encoding(run.position.type).options) {
    const std::string was = position_value_text(source.position.value(o.key));
    const std::string is = position_value_text(run.position.value(o.key));
    if (was != is)
      list +=
          fmt::format("{}model.position.{} {} (pre-trained) / {} (this run)", list.empty() ? "" : ", ", o.key, was, is);
  }
  return list.empty() ? "" : " (" + list + ")";
}

// A run directory (or a pointer in it) means the run's final best checkpoint:
// a run still training, or stopped before its end, has only a best so far.
void require_finished_run(const std::string& given, const std::string& resolved) {
  const RunDirectory run = RunDirectory::of_checkpoint(resolved);
  const std::vector<std::pair<int64_t, std::string>> steps = run.checkpoints().list();
  const int64_t newest = steps.empty() ? -1 : steps.back().first;
  const std::optional<std::string> holder = lock_holder(run.root());
  if (!holder && run.summarized_steps() == newest) return;
  const std::string state = holder ? "is still training (pid " + *holder + ")" : "has not finished (no summary.json)";
  throw ConfigError(fmt::format(
      "model.init_from: the run {} {}, at step {}: its best checkpoint so far ({}) may not be its best; wait for it "
      "to finish (or resume it), or set model.init_from to that checkpoint file to start from it anyway",
      given, state, newest, resolved));
}

}  // namespace

PretrainedEncoder read_pretrained_encoder(const Config& config) {
  const std::string& given = config.init_from.checkpoint;
  PretrainedEncoder source;
  try {
    if (!std::filesystem::exists(given)) throw CheckpointError(given + ": no such file or directory");
    std::vector<std::string> warnings;
    const ResolvedCheckpoint resolved = resolve_training_checkpoint(given, &warnings);
    for (const std::string& w : warnings) fmt::print(stderr, "warning: model.init_from: {}\n", w);
    if (!resolved.how.empty()) require_finished_run(given, resolved.path);
    source.checkpoint = resolved.path;
    source.contents = read_checkpoint(source.checkpoint);
    source.header = read_header(source.contents, source.checkpoint);
  } catch (const CheckpointError& e) {
    throw CheckpointError(std::string("model.init_from: ") + e.what());
  }
  source.checksum = fmt::format("fnv1a64:{:016x}", content_checksum(source.contents));
  if (!config.init_from.checksum.empty() && config.init_from.checksum != source.checksum)
    throw ConfigError(fmt::format("model.init_from_checksum: this run expects {} but the pre-trained model {} has {}",
                                  config.init_from.checksum, source.checkpoint, source.checksum));
  require_same_encoder(source.header.config, config, source.checkpoint);
  require_same_tokenizer(config, *source.header.loaded_tokenizer, source.checkpoint);
  return source;
}

void load_pretrained_encoder(const PretrainedEncoder& source, const Config& config, Model& model) {
  ParameterStore& params = model.parameters();
  for (const std::string& name : model.encoder_parameters()) {
    const auto saved = source.contents.tensors.find("model/" + name);
    if (saved == source.contents.tensors.end()) {
      if (params.id(name) == model.cls_slot()) continue;  // a language model has no [CLS] vector to give
      throw CheckpointError("model.init_from: " + source.checkpoint + ": no parameter " + name +
                            " (not a rotor encoder of this kind?)");
    }
    Tensor dst = params.value(params.id(name));
    if (saved->second.shape() != dst.shape())
      throw ConfigError(
          fmt::format("model.init_from: parameter {} has shape {} in the pre-trained model {} but {} "
                      "in this run{}",
                      name, to_string(saved->second.shape()), source.checkpoint, to_string(dst.shape()),
                      differing_position_keys(source.header.config.model, config.model)));
    dst.copy_from(saved->second);
  }
}

InitFromConfig source_record(const PretrainedEncoder& source) {
  return InitFromConfig{std::filesystem::absolute(source.checkpoint).lexically_normal().string(), source.checksum};
}

std::string describe_start(const PretrainedEncoder& source) {
  return fmt::format("encoder: pre-trained, from {} (step {}, {}); the head is drawn fresh", source.checkpoint,
                     source.header.state.step, option_name(source.header.config.train.objective));
}

}  // namespace rotor

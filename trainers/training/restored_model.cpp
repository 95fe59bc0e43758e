#include "trainers/training/restored_model.h"

#include <fmt/format.h>

#include "models/position_encoding.h"
#include "trainers/config/config_loader.h"
#include "trainers/config/stored_config_upgrade.h"

namespace rotor {

RestoredModel restore_model(const std::string& checkpoint, const std::vector<std::string>& overrides) {
  const CheckpointContents contents = read_checkpoint(checkpoint);
  RestoredModel r;
  r.header = read_header(contents, checkpoint);
  if (!overrides.empty()) {
    const ModelConfig derived = r.header.config.model;
    r.header.config = parse_config_text(upgrade_stored_config(contents.texts.at("config")),
                                        checkpoint + " (stored config)", overrides);
    const int64_t rows = position_encoding(derived.position.type).max_positions(derived);
    if (rows > 0 && position_encoding(derived.position.type).max_positions(r.header.config.model) != rows)
      throw ConfigError(fmt::format(
          "--set model.position.max_len: the {} position table of {} has {} rows, fixed when the model was trained "
          "(it cannot grow after training); evaluate windows of at most {} tokens with --max-len instead",
          derived.position.type, checkpoint, rows, rows - derived.positions_for(0)));
    r.header.config.model.vocab_size = derived.vocab_size;
    r.header.config.model.num_classes = derived.num_classes;
  }
  r.tokenizer = load_tokenizer(r.header.tokenizer);
  r.labels = LabelVocab(r.header.labels);
  r.model = std::make_unique<EncoderClassifier>(r.header.config.model, DType::F32);
  r.model->initialize(r.header.config.run.seed);
  load_parameters(contents, checkpoint, *r.model);
  return r;
}

void check_trained_length(const ModelConfig& model, int64_t tokens, const std::string& length_key) {
  const int64_t rows = position_encoding(model.position.type).max_positions(model);
  const int64_t needed = model.positions_for(tokens);
  if (rows > 0 && needed > rows)
    throw ConfigError(fmt::format(
        "{} {}: windows of {} tokens need {} positions, but the {} position table has {} rows, fixed when the "
        "model was trained (it cannot grow after training); evaluate with {} {} or less, or train with an encoding "
        "that has no table (rope, alibi, t5_bias, sinusoidal) to evaluate longer windows",
        length_key, tokens, tokens, needed, model.position.type, rows, length_key, rows - (needed - tokens)));
}

}  // namespace rotor

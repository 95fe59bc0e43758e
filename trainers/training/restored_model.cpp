#include "trainers/training/restored_model.h"

#include <fmt/format.h>

#include "models/position_encoding.h"
#include "trainers/config/objective_table.h"

namespace rotor {

namespace {

// A position table's rows were fixed when the model was trained, so an
// override that changes them is refused with this explanation rather than
// failing on the weights' shape.
void require_trained_table(const ModelConfig& trained, const ModelConfig& model, const std::string& checkpoint) {
  const int64_t rows = position_encoding(trained.position.type).max_positions(trained);
  if (rows > 0 && position_encoding(trained.position.type).max_positions(model) != rows)
    throw ConfigError(fmt::format(
        "--set model.position.max_len: the {} position table of {} has {} rows, fixed when the model was trained "
        "(it cannot grow after training); evaluate windows of at most {} tokens with --max-len instead",
        trained.position.type, checkpoint, rows, rows - trained.positions_for(0)));
}

// The encodings with no position table (models/position_encoding_table.cpp), whose models evaluate windows of any
// length; the position-free one (none) is no suggestion for a task that needs positions.
std::string table_free_encodings(const ModelConfig& model) {
  std::string names;
  for (const PositionEncodingSpec& s : position_encodings())
    if (!s.position_free && s.max_positions(model) == 0) names += (names.empty() ? "" : ", ") + s.name;
  return names;
}

}  // namespace

RestoredModel restore_model(const std::string& checkpoint, const std::vector<std::string>& overrides) {
  const CheckpointContents contents = read_checkpoint(checkpoint);
  RestoredModel r;
  r.header = read_header(contents, checkpoint, overrides);
  require_trained_table(r.header.trained_model, r.header.config.model, checkpoint);
  r.tokenizer = r.header.loaded_tokenizer;
  if (r.header.config.data.labelled) r.labels = LabelVocab(r.header.labels);  // a language model has none
  r.model = objective_spec(r.header.config.train.objective).make_model(r.header.config.model);  // as training built it
  r.model->initialize(r.header.config.run.seed);
  load_parameters(contents, checkpoint, *r.model);
  return r;
}

EncoderClassifier& RestoredModel::classifier(const std::string& command) const {
  auto* classifier = dynamic_cast<EncoderClassifier*>(model.get());
  if (classifier == nullptr)
    throw ConfigError(fmt::format("{}: this checkpoint holds a language model (train.objective {}), not a classifier",
                                  command, option_name(header.config.train.objective)));
  return *classifier;
}

LanguageModel& RestoredModel::language_model() const { return dynamic_cast<LanguageModel&>(*model); }

LanguageModel& RestoredModel::causal_language_model(const std::string& command, const std::string& checkpoint) const {
  if (!objective_spec(header.config.train.objective).causal)
    throw ConfigError(
        fmt::format("{}: {} needs a causal language model (train.objective {}); this checkpoint's "
                    "objective is {}",
                    checkpoint, command, causal_objective_names(), option_name(header.config.train.objective)));
  return language_model();
}

void check_trained_length(const ModelConfig& model, int64_t tokens, const std::string& length_key) {
  const int64_t rows = position_encoding(model.position.type).max_positions(model);
  const int64_t needed = model.positions_for(tokens);
  if (rows > 0 && needed > rows)
    throw ConfigError(fmt::format(
        "{} {}: windows of {} tokens need {} positions, but the {} position table has {} rows, fixed when the "
        "model was trained (it cannot grow after training); evaluate with {} {} or less, or train with an encoding "
        "that has no table ({}) to evaluate longer windows",
        length_key, tokens, tokens, needed, model.position.type, rows, length_key, rows - (needed - tokens),
        table_free_encodings(model)));
}

}  // namespace rotor

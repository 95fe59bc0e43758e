#include "trainers/training/restored_model.h"

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

}  // namespace rotor

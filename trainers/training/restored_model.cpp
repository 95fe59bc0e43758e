#include "trainers/training/restored_model.h"

#include "trainers/config/config_loader.h"

namespace rotor {

RestoredModel restore_model(const std::string& checkpoint, const std::vector<std::string>& overrides) {
  const CheckpointContents contents = read_checkpoint(checkpoint);
  RestoredModel r;
  r.header = read_header(contents, checkpoint);
  if (!overrides.empty())
    r.header.config = parse_config_text(contents.texts.at("config"), checkpoint + " (stored config)", overrides);
  r.tokenizer = load_tokenizer(r.header.tokenizer);
  r.labels = LabelVocab(r.header.labels);
  r.model = std::make_unique<EncoderClassifier>(r.header.config.model, DType::F32);
  r.model->initialize(r.header.config.run.seed);
  load_parameters(contents, checkpoint, *r.model);
  return r;
}

}  // namespace rotor

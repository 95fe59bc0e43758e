#include "trainers/study/frequency_measurement.h"

#include "models/model_options.h"
#include "models/position_encoding.h"
#include "trainers/diagnostics/frequency_use.h"
#include "trainers/run/run_directory.h"
#include "trainers/study/attention_usage.h"
#include "trainers/study/best_checkpoint.h"
#include "trainers/training/restored_model.h"
#include "trainers/training/run_compute_scope.h"

namespace rotor {

bool measures_frequency_use(const Config& config) {
  return position_encoding(config.model.position.type).rope_frequencies;
}

FrequencyUseRecord measure_run_frequencies(const std::string& run_dir) {
  const BestCheckpoint best = open_best_checkpoint(run_dir);
  const RestoredModel r = restore_model(best.path);
  FrequencyUseRecord record;
  if (r.model->config().attention != AttentionKind::softmax) {
    record.reason = "linear attention forms no attention logits";
  } else if (r.model->config().interleaved_position.active()) {
    record.reason = "model.interleaved_position gives some layers another encoding, so no one set of pairs applies";
  } else {
    // The run's precision and threads, as its length sweep and offset profiles compute.
    const RunComputeScope compute(r.header.config.run);
    const TokenizedSplit& split = best.data.split("val");
    record.measured = measure_frequency_use(*r.model, split, best.training_length, kAttentionWindows).to_json();
    record.measured["split"] = split.name;
    record.measured["layout"] = option_name(r.model->position_encoding().rotation()->layout());
    record.available = true;
  }
  RunDirectory(run_dir).write_frequency_use(record);
  return record;
}

}  // namespace rotor

#include "trainers/study/offset_measurement.h"

#include "trainers/diagnostics/offset_profile.h"
#include "trainers/run/run_directory.h"
#include "trainers/study/attention_usage.h"
#include "trainers/study/best_checkpoint.h"
#include "trainers/training/restored_model.h"
#include "trainers/training/run_compute_scope.h"

namespace rotor {

OffsetProfileRecord measure_run_offsets(const std::string& run_dir) {
  const BestCheckpoint best = open_best_checkpoint(run_dir);
  const RestoredModel r = restore_model(best.path);
  OffsetProfileRecord record;
  if (r.model->config().attention != AttentionKind::softmax) {
    record.reason = "linear attention forms no attention probabilities";
  } else {
    // The run's precision and threads, as its length sweep and attention check compute.
    const RunComputeScope compute(r.header.config.run);
    NoGradGuard no_grad;
    nlohmann::json measured = measure_offset_profiles(*r.model, best.data.split("val"), best.training_length,
                                                      kAttentionWindows, r.header.config.run.precision)
                                  .to_json();
    measured["available"] = true;
    measured["split"] = "val";
    record = measured.get<OffsetProfileRecord>();
  }
  RunDirectory(run_dir).write_offset_profiles(record);
  return record;
}

}  // namespace rotor

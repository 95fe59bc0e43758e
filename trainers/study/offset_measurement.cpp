#include "trainers/study/offset_measurement.h"

#include <optional>

#include "datasets/tasks/separation_tasks.h"
#include "trainers/diagnostics/offset_profile.h"
#include "trainers/run/run_directory.h"
#include "trainers/study/attention_usage.h"
#include "trainers/study/best_checkpoint.h"
#include "trainers/study/offset_check.h"
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
    // On the offset task, from the marker's queries: the mean over every row dilutes the one that reads +k.
    const bool offset_task = task_offset(r.header.config) > 0;
    const std::optional<int32_t> marker =
        offset_task ? std::optional<int32_t>(r.tokenizer->encode(kOffsetMarker).at(0)) : std::nullopt;
    nlohmann::json measured = measure_offset_profiles(*r.model, best.data.split("val"), best.training_length,
                                                      kAttentionWindows, r.header.config.run.precision, marker)
                                  .to_json();
    measured["available"] = true;
    measured["split"] = "val";
    if (offset_task) measured["query"] = std::string(kOffsetMarker);
    record = measured.get<OffsetProfileRecord>();
  }
  RunDirectory(run_dir).write_offset_profiles(record);
  return record;
}

}  // namespace rotor

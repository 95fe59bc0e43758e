// sweep_plan (trainers/study/study_spec.h): which splits, lengths and scalings a study's length sweep evaluates.
#include <algorithm>

#include "datasets/tasks/builtin_tasks.h"
#include "models/position_encoding.h"
#include "trainers/config/objective_table.h"
#include "trainers/study/study_spec.h"

namespace rotor {

std::vector<SweepCell> sweep_plan(const StudySpec& spec, const Config& config) {
  const bool scales = position_encoding(config.model.position.type).scales_lengths;
  std::vector<SweepCell> plan;
  // No lengths given: windows that hold each split's longest sample where the task knows it (a generated task's
  // test_<L> split: L), else the training length.
  const std::map<std::string, int64_t> longest =
      spec.evaluation.lengths.empty() ? generated_splits_max_tokens(config.data) : std::map<std::string, int64_t>{};
  for (const std::string& split : spec.evaluation.splits) {
    const auto found = longest.find(split);
    const int64_t own = found == longest.end() ? 0 : found->second;
    const std::vector<int64_t> lengths = !spec.evaluation.lengths.empty() ? spec.evaluation.lengths
                                         : own > 0                        ? std::vector<int64_t>{own}
                                                                          : std::vector<int64_t>{config.data.max_len};
    for (int64_t length : lengths)
      for (const std::string& scaling : spec.evaluation.scalings) {
        if (scaling != unscaled() && !(scales && length > config.data.max_len)) continue;
        SweepCell point = sweep_point(split, length, scaling);
        point.stream_windows = objective_spec(config.train.objective).data == ObjectiveData::token_stream;
        if (point.stream_windows) {
          point.stride = spec.evaluation.stride > 0 ? std::min(spec.evaluation.stride, length) : length;
          point.max_tokens = spec.evaluation.max_tokens;
        }
        plan.push_back(point);
      }
  }
  return plan;
}

}  // namespace rotor

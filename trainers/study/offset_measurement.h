#pragma once
// A study's look at what the best checkpoint of a variant's first seed
// attends to: the attention-distance profile of every layer and head
// (diagnostics/offset_profile.h, as `rotor analyze offsets` measures it) over
// up to kAttentionWindows validation documents, each cut to the run's
// training length. Stored in RUN/offsets.json (run/offset_profile_record.h);
// linear attention is recorded as n/a with the reason.
#include <string>

#include "trainers/run/offset_profile_record.h"

namespace rotor {

// Measures and writes the run's offset profiles (the run must be finished).
OffsetProfileRecord measure_run_offsets(const std::string& run_dir);

}  // namespace rotor

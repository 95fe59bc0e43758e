#pragma once
// A study's look at how the best checkpoint of a rotary variant's first seed
// uses each frequency pair: per layer, head and pair, the q and k norms and
// the pair's share of the attention logit (diagnostics/frequency_use.h, as
// `rotor analyze frequencies` measures it) over up to kAttentionWindows
// validation documents, each cut to the run's training length. Stored in
// RUN/frequencies.json (run/frequency_use_record.h); linear attention is
// recorded as n/a with the reason.
#include <string>

#include "trainers/config/config.h"
#include "trainers/run/frequency_use_record.h"

namespace rotor {

// Whether the run's encoding rotates q and k (its row's rope_frequencies): only those are measured.
bool measures_frequency_use(const Config& config);

// Measures and writes the run's frequency use (the run must be finished and rotary).
FrequencyUseRecord measure_run_frequencies(const std::string& run_dir);

}  // namespace rotor

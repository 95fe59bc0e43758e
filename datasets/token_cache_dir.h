#pragma once
// Where tokenized data is cached when data.cache_dir is empty: beside the data
// where rotor knows where the data lives, else in one cache folder per user,
// never in a data/ folder of whatever directory rotor runs from.
//   - <data_dir>/cache when data.data_dir or $ROTOR_DATA names a data folder,
//     and for a fetched corpus (brown, sotu, austen), which lives there;
//   - otherwise (a generated task, the user's own files) $XDG_CACHE_HOME/rotor/
//     tokens, else ~/.cache/rotor/tokens (neither set: <data_dir>/cache).
// A cache file's name holds the key of its sources and settings (token_cache.h),
// so the runs of other projects share the folder safely.
#include <string>

#include "datasets/data_config.h"

namespace rotor {

std::string token_cache_dir(const DataConfig& config);

}  // namespace rotor

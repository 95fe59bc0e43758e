#pragma once
// The separation tasks (separation_tasks.h) as datasets: their splits, the
// checks of data.generated.*, and the filling of the splits.
//
// Splits: train (data.train_size, default 10000), val and test (data.eval_size,
// default 1000 each) with lengths in [min_len, max_len], then one "test_<L>"
// per entry L of test_lengths (eval_size samples) with lengths in (L/2, L].
// A sample's length is uniform over the lengths its task allows in the range
// (recall: even, missing-duplicate: odd, offset: > k + 1), so a range may be
// rounded inward; a range with no allowed length is a DataError.
//
// Sample j of a split has label j % classes (exactly balanced when the size is
// a multiple of the class count, else within one). Attempt a = 0, 1, ... at
// it is draw d = j * kDrawsPerSample + a: its length is draw d of
// RandomKey{data_seed, stream_id("<task>/<split>/length"), 0} and its symbols
// come from RandomKey{data_seed, stream_id("<task>/<split>"), d}; attempts
// go on until the text differs from every sample taken
// before (splits are filled in order, so all of them are disjoint). The data
// is a pure function of the task, its options and data_seed.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/data_config.h"
#include "datasets/document.h"

namespace rotor {

// Draws one sample may take before its split is declared unfillable.
constexpr int64_t kDrawsPerSample = 100;
// Every generated task's split sizes when data.train_size / data.eval_size are 0.
constexpr int64_t kDefaultTrainSize = 10000;
constexpr int64_t kDefaultEvalSize = 1000;

// A sample's symbols as its text: separated by single spaces.
std::string joined_symbols(const std::vector<std::string>& symbols);

struct GeneratedSplit {
  std::string name;
  int64_t size = 0;
  int64_t min_len = 0;  // inclusive, an allowed length of the task
  int64_t max_len = 0;  // inclusive, an allowed length of the task
};

// The checks of data.generated.* every generated task shares (lengths, and the
// separation tasks' alphabet, keys and offset): throws DataError naming the key.
void check_generated_options(const GeneratedTaskConfig& config);

std::vector<std::string> separation_task_names();
bool is_separation_task(std::string_view task);

// The splits of config.task with config.train_size / eval_size applied.
// Throws DataError naming the data.generated key (or data.train_size /
// data.eval_size) when an option is out of range or a range holds no length
// the task allows.
std::vector<GeneratedSplit> separation_splits(const DataConfig& config);

// The samples as documents: label = class name, key = text. Adds the number
// of draws to `attempts`. Throws DataError naming the task and split when a
// split cannot be filled with distinct samples.
std::vector<DocumentSplit> separation_documents(const DataConfig& config, int64_t& attempts);

}  // namespace rotor

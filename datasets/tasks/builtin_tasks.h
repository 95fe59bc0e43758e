#pragma once
// Built-in tasks: the ListOps presets (generated, nothing to download) and
// the corpora that tools/fetch/*.sh download and convert to JSONL.
//
//   listops-easy    quickstart: depth <= 3, <= 5 args, 8..64 tokens, 10k/1k/1k
//   listops-short   depth <= 4, <= 30 args, values balanced: train, val and
//                   test 16..128 tokens (10k/1k/1k), test_256 129..256,
//                   test_512 257..512, test_1024 513..1024 (1k each)
//   listops-512     depth <= 10, <= 10 args, 101..512 tokens, 96k/2k/2k
//   listops-2k      LRA: 501..1999 tokens, 96k/2k/2k
//   listops-extrap  length extrapolation: train and val 501..1000 tokens,
//                   test 1001..2000 and test_4k 2001..4096
//   listops         DataConfig::listops as given (defaults = LRA)
//   order, first-last, offset, recall, missing-duplicate, bigram
//                   separation tasks (datasets/tasks/generated_tasks.h)
//   even-pairs, reverse-string, ...
//                   the sequence tasks of sequence_tasks() (one row each in
//                   the file of their family, datasets/tasks/task_families.h),
//                   made into splits by datasets/tasks/sequence_task_data.h
//   brown, brown-4  Brown corpus genre, 15-way or 4-way {press, nonfiction,
//                   learned, fiction}; split by file number (302/105/93)
//   sotu            State of the Union: 25-year period of a speech (9 classes),
//                   split 80/10/10 by hash of the speech's file stem
//   austen          Jane Austen's six novels, unlabelled (language models
//                   only): one document per chapter, in book order; split by
//                   chapter number within its novel (n % 10: 9 val, 0 test)
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/data_config.h"
#include "datasets/document.h"
#include "datasets/tasks/generated_tasks.h"
#include "datasets/tasks/listops.h"

namespace rotor {

std::vector<std::string> builtin_task_names();

bool is_listops_task(std::string_view task);
// A ListOps, separation or sequence task: generated, tokenized with vocab by default.
bool is_generated_task(std::string_view task);

// The held-out splits a task's dataset has: val, test, then the extra test
// splits of a generated task (listops-extrap: test_4k; separation tasks:
// test_<L>). Throws DataError on bad data.generated options.
// The longest sample of each split of a generated task (ListOps, the
// separation tasks, and a sequence task's documents in its layout), train
// included, by split name; empty when it is not known (files, corpora). A
// sequence task generates every split to find them: call it once, not per split.
std::map<std::string, int64_t> generated_splits_max_tokens(const DataConfig& config);

std::vector<std::string> held_out_split_names(const DataConfig& config);

// The generator config of a ListOps task: its preset (or config.listops for
// task "listops") with config.train_size and config.eval_size applied.
ListOpsConfig listops_task_config(const DataConfig& config);

// Generated samples as documents: label = value, key = expression. Adds the
// number of trees drawn to `attempts`.
std::vector<DocumentSplit> listops_documents(const ListOpsConfig& config, uint64_t seed, int64_t& attempts);

// `config` with the source settings of a corpus task (brown, brown-4, sotu, austen)
// pointing at the fetched JSONL under `data_dir`. Throws DataError for an
// unknown task, for the unlabelled austen in a labelled run, or naming the
// fetch script when the corpus is missing.
DataConfig corpus_task_config(const DataConfig& config, const std::string& data_dir);

}  // namespace rotor

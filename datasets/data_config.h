#pragma once
// Every option of the datasets layer, with its default. The trainer's YAML
// layer maps keys of the same names onto these fields; validate() checks them
// (the config loader and load_dataset() call it).
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/lm_windows.h"
#include "datasets/tasks/generated_task_config.h"
#include "datasets/tasks/listops.h"
#include "datasets/tasks/sequence_layout.h"
#include "datasets/tokenizer.h"
#include "datasets/windowing.h"
#include "engine/option_names.h"

namespace rotor {

// automatic (data.format ""): from the extension (.jsonl .json .csv .tsv
// .txt; a directory is a folder source when labelled, else text).
enum class DataFormat { automatic, jsonl, csv, tsv, folder, text };

template <>
struct OptionNames<DataFormat> {
  static constexpr std::array<std::pair<DataFormat, const char*>, 6> table{{{DataFormat::automatic, ""},
                                                                            {DataFormat::jsonl, "jsonl"},
                                                                            {DataFormat::csv, "csv"},
                                                                            {DataFormat::tsv, "tsv"},
                                                                            {DataFormat::folder, "folder"},
                                                                            {DataFormat::text, "text"}}};
};

struct DataConfig {
  // ---- What to read -------------------------------------------------------
  // A built-in task (datasets/tasks/builtin_tasks.h: the ListOps presets,
  // the separation tasks, the sequence tasks of datasets/tasks/sequence_task.h,
  // the corpora brown, brown-4, sotu and the unlabelled austen); it fills in
  // the source settings below. Empty: read the files named below.
  std::string task;
  // Where the fetch scripts put corpora. Empty: $ROTOR_DATA, else "data".
  std::string data_dir;
  // jsonl | csv | tsv | folder | text. automatic (""): from the extension
  // (.jsonl .csv .tsv .txt; a directory is a folder source <dir>/<label>/*.txt
  // when labelled, else text). text is unlabelled: a folder of *.txt files
  // (recursive, sorted paths) gives one document per file, keyed by its path
  // relative to the folder; a single .txt file is cut into documents at blank
  // lines (paragraphs), each keyed by its text.
  DataFormat format = DataFormat::automatic;
  // Explicit sources per split. An empty val_path or test_path carves that
  // split out of train_path by hash of the key, as source_path does: buckets
  // [0, 80) train, [80, 90) val, [90, 100) test for 0.1/0.1; a split carved
  // alone takes the top buckets.
  std::string train_path;
  std::string val_path;
  std::string test_path;
  // Instead of train_path: one source split by hash into train/val/test.
  std::string source_path;
  std::string text_field = "text";    // JSONL field or CSV column of the text
  std::string label_field = "label";  // ... of the label (string or integer)
  std::string key_field;              // ... of the split key; empty: the text is the key
  // JSONL field of each token's position (a list of integers, one per token the run's tokenizer
  // gives the text); empty: token t of a window at t. Classification only.
  std::string positions_field;
  double val_fraction = 0.1;  // hash split shares, in whole percents
  double test_fraction = 0.1;
  // Non-empty: keep only documents with these labels (e.g. drop aclImdb's "unsup").
  std::vector<std::string> include_labels;
  // Derived, not a YAML key: set by the trainer from train.objective; a
  // language model reads text only. false: sources need no label field,
  // column or folder, the label vocabulary is empty, every label is 0, and a
  // labelled task (brown, sotu) gives its text alone.
  bool labelled = true;
  // Derived, not a YAML key: set by the trainer from train.objective; how a
  // sequence task's sample becomes tokens and per-token targets.
  SequenceLayout sequence_layout = SequenceLayout::queries;

  // ---- Generated tasks (ListOps, separation and sequence tasks) -------------
  // Seed of the generated data, separate from `seed` so that runs with
  // different training seeds see the same examples.
  uint64_t data_seed = 0;
  int64_t train_size = 0;  // > 0: overrides the preset's training set size
  int64_t eval_size = 0;   // > 0: overrides the size of every val/test split
  // Generator settings of task "listops" (the presets bring their own);
  // the defaults are LRA's (= listops-2k).
  ListOpsConfig listops;
  // Lengths and symbols of the separation tasks (datasets/tasks/generated_tasks.h)
  // and the lengths of the sequence tasks (datasets/tasks/sequence_task_data.h).
  GeneratedTaskConfig generated;

  // ---- Tokenizer ------------------------------------------------------------
  // byte | vocab | sentencepiece. automatic (""): vocab for generated tasks, byte otherwise.
  TokenizerKind tokenizer = TokenizerKind::automatic;
  // sentencepiece: size to train; vocab: maximum size (0 = no limit). Counts
  // the 4 special tokens (PAD, CLS, SEP, UNK).
  int64_t vocab_size = 8000;
  int64_t min_freq = 1;                                 // vocab: minimum count in the training split
  bool lowercase = false;                               // vocab: ASCII letters lowercased before the lookup
  bool split_punctuation = false;                       // vocab: ASCII punctuation split off as tokens of its own
  SpmModelType spm_model_type = SpmModelType::unigram;  // sentencepiece: unigram | bpe

  // ---- Long documents ------------------------------------------------------
  int64_t max_len = 512;     // tokens per training window
  int64_t eval_max_len = 0;  // tokens per evaluation window; 0: max_len (set larger to test length extrapolation)
  // Language models: cut the joined stream (stream) or each document on its own (document), datasets/lm_windows.h.
  BlockPacking lm_blocks = BlockPacking::stream;
  Truncation truncation = Truncation::head;  // head | tail | head_tail (first and last max_len/2 tokens)
  // Train on a random window of each document longer than max_len, re-drawn
  // every epoch; false: truncate as in evaluation.
  bool random_train_windows = true;
  // first: evaluate the truncated document; all: every window of it (the
  // trainer averages the logits of a document's windows, see Batch::doc_ids).
  EvalWindows eval_windows = EvalWindows::first;
  // The order control: each window's tokens in a random order, re-drawn per
  // document and epoch in training, fixed per document in evaluation. A task
  // whose accuracy survives this does not need word order (nor positions).
  bool shuffle_tokens = false;

  // ---- Batching and order --------------------------------------------------
  int64_t batch_size = 32;     // windows per batch, when batch_tokens is 0
  int64_t batch_tokens = 0;    // > 0: batch by a budget of padded tokens instead
  int64_t bucket_pool = 1024;  // windows sorted together by length, rounded up to whole batches (0 or 1: no bucketing)
  uint64_t seed = 0;           // shuffling and random windows, per epoch

  // ---- Cache -----------------------------------------------------------------
  bool cache = true;      // reuse tokenized data when sources and settings are unchanged
  std::string cache_dir;  // empty: beside the data, or the user's cache folder (token_cache_dir.h)

  // The rules on these options, once: throws DataError "data.<key>: <what was
  // expected>". Sources (task, paths) are checked when they are read.
  void validate() const;
};

// data.tokenizer with automatic resolved: vocab for generated tasks, byte otherwise.
TokenizerKind resolved_tokenizer(const DataConfig& config);

// data.format with automatic resolved for the source `path`: from its
// extension, a directory by config.labelled. Throws DataError for an unknown
// extension.
DataFormat resolved_format(const std::string& path, const DataConfig& config);

}  // namespace rotor

#pragma once
// The datasets layer's entry point: from a DataConfig to tokenized
// train/val/test splits, the tokenizer, the label vocabulary and statistics,
// and from there to samplers that serve batches.
//
//   rotor::DataConfig cfg;  cfg.task = "listops-easy";  cfg.max_len = 64;
//   rotor::Dataset data = rotor::load_dataset(cfg, {{}, {}, warn});
//   std::cout << data.stats.report();
//   rotor::Sampler train = rotor::make_sampler(data, cfg, "train");
//   rotor::Batch batch;
//   while (train.next(batch)) { ... }   // one epoch; save train.state() in checkpoints
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/data_config.h"
#include "datasets/data_error.h"
#include "datasets/data_stats.h"
#include "datasets/label_vocab.h"
#include "datasets/sampler.h"
#include "datasets/source_fingerprint.h"
#include "datasets/tasks/builtin_tasks.h"  // builtin_task_names() for the config schema
#include "datasets/tokenized_split.h"
#include "datasets/tokenizer.h"

namespace rotor {

struct LoadOptions {
  // Non-empty: Tokenizer::save() of an earlier run, used instead of training
  // a tokenizer (evaluation and resume see exactly the same tokens).
  std::string tokenizer;
  // Non-empty: the class names of an earlier run (LabelVocab::names()).
  std::vector<std::string> labels;
  // Receives each warning (e.g. invalid UTF-8 replaced) once; unset: silent.
  std::function<void(const std::string&)> warn;
};

struct Dataset {
  std::shared_ptr<const Tokenizer> tokenizer;
  LabelVocab labels;
  // "train", "val", "test", then any extra evaluation splits (listops-extrap:
  // "test_4k"), each with at least one document.
  std::vector<TokenizedSplit> splits;
  DataStats stats;
  // The files read, with their contents' SHA-1 (none for a generated task).
  std::vector<SourceFingerprint> sources;

  // Throws DataError naming the known splits if there is no split `name`.
  const TokenizedSplit& split(std::string_view name) const;
};

// Reads (or generates) the data, builds the label vocabulary from the
// training split, trains the tokenizer on it, tokenizes every split, and
// caches the result. Throws DataError on bad input or settings.
Dataset load_dataset(const DataConfig& config, const LoadOptions& options = {});

// A sampler over split `name`: training order and random windows for "train",
// evaluation windows (eval_max_len, eval_windows) for every other split.
// The dataset must outlive the sampler.
Sampler make_sampler(const Dataset& data, const DataConfig& config, std::string_view name);
// An evaluation sampler over any tokenized split (e.g. a file given to
// `rotor eval --data`); the split must outlive the sampler.
Sampler make_eval_sampler(const TokenizedSplit& split, const DataConfig& config);

// The window and batch settings a sampler over split `name` uses.
WindowConfig window_config(const DataConfig& config, std::string_view name);
BatchConfig batch_config(const DataConfig& config);
// The batches of an evaluation at windows of `window_len` tokens, sized so that one holds no more padded tokens
// than a training batch (which also keeps a graph, so evaluation needs less memory): training's batches, except
// that with batch_size batching a window longer than max_len (a length sweep) gets batch_size * max_len /
// window_len windows per batch (at least one). batch_tokens batching caps the tokens already.
BatchConfig eval_batch_config(const DataConfig& config, int64_t window_len);
// Tokens per evaluation window: eval_max_len, or max_len when it is 0.
int64_t eval_max_len(const DataConfig& config);

// Whether a source must carry a label field (eval) or needs only the text (predict).
enum class Labelled { yes, no };

// The documents of one file or folder read in data.format (empty: from the
// extension) with data.text_field, label_field and key_field. Unlabelled
// documents (to predict) have an empty label and as key their id: the
// key_field, or when that is empty an "id" field or column where present
// (else an empty key). Invalid UTF-8 is repaired and reported once
// through `warn`. Throws DataError naming the file and line.
std::vector<Document> read_documents(const std::string& path, const DataConfig& config, Labelled labelled,
                                     const std::function<void(const std::string&)>& warn = {});

// Tokenizes documents into a split called `name`; labels are encoded with
// `labels` (nullptr: unlabelled, every label 0). A document whose text encodes
// to no tokens throws DataError naming its file and line.
TokenizedSplit tokenize_documents(const std::string& name, const std::vector<Document>& docs,
                                  const Tokenizer& tokenizer, const LabelVocab* labels);

// data_dir, else $ROTOR_DATA, else "data".
std::string resolve_data_dir(const DataConfig& config);

}  // namespace rotor

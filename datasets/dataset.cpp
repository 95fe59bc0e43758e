#include "datasets/dataset.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "datasets/csv_reader.h"
#include "datasets/data_error.h"
#include "datasets/folder_reader.h"
#include "datasets/jsonl_reader.h"
#include "datasets/split.h"
#include "datasets/tasks/builtin_tasks.h"
#include "datasets/tasks/sequence_task_data.h"
#include "datasets/text_reader.h"
#include "datasets/token_cache.h"
#include "datasets/token_cache_dir.h"
#include "datasets/token_options.h"

namespace fs = std::filesystem;

namespace rotor {
namespace {

std::vector<Document> read_source(const std::string& path, const DataConfig& c, Utf8Repairs& repairs,
                                  Labelled labelled = Labelled::yes) {
  // Documents to label carry an id: data.key_field, or an "id" field where present.
  const bool to_label = labelled == Labelled::no;
  const FieldNames fields{c.text_field, to_label || !c.labelled ? "" : c.label_field,
                          to_label && c.key_field.empty() ? "id" : c.key_field, to_label && c.key_field.empty(),
                          c.positions_field};
  const DataFormat format = resolved_format(path, c);
  if (!c.positions_field.empty() && format != DataFormat::jsonl)
    throw DataError("positions_field: '" + path + "' is not JSONL; per-token positions are read from a JSONL field");
  if (format == DataFormat::text && c.labelled && !to_label) {
    throw DataError("format: '" + path +
                    "' is text, which has no labels (a classifier reads jsonl, csv, tsv or a folder "
                    "<dir>/<label>/*.txt; a language model reads text)");
  }
  switch (format) {
    case DataFormat::csv:
      return read_csv(path, ',', fields, repairs);
    case DataFormat::tsv:
      return read_csv(path, '\t', fields, repairs);
    case DataFormat::folder:
      return read_folder(path, repairs);
    case DataFormat::text:
      return read_text(path, repairs);
    case DataFormat::jsonl:
    case DataFormat::automatic:  // resolved by resolved_format
      break;
  }
  return read_jsonl(path, fields, repairs);
}

std::vector<DocumentSplit> read_file_splits(const DataConfig& c, Utf8Repairs& repairs) {
  SplitDocuments s;
  if (!c.source_path.empty()) {
    if (!c.train_path.empty() || !c.val_path.empty() || !c.test_path.empty()) {
      throw DataError("source_path: set either source_path or train_path/val_path/test_path, not both");
    }
    s = split_by_hash(read_source(c.source_path, c, repairs), c.val_fraction, c.test_fraction);
  } else {
    if (c.train_path.empty()) throw DataError("train_path: no data source (set task, train_path or source_path)");
    // Only the splits without a file of their own are carved out of train.
    s = split_by_hash(read_source(c.train_path, c, repairs), c.val_path.empty() ? c.val_fraction : 0.0,
                      c.test_path.empty() ? c.test_fraction : 0.0);
    if (!c.val_path.empty()) s.val = read_source(c.val_path, c, repairs);
    if (!c.test_path.empty()) s.test = read_source(c.test_path, c, repairs);
  }
  return {{"train", std::move(s.train)}, {"val", std::move(s.val)}, {"test", std::move(s.test)}};
}

void keep_only_labels(std::vector<DocumentSplit>& splits, const std::vector<std::string>& include) {
  if (include.empty()) return;
  for (DocumentSplit& split : splits) {
    std::vector<Document> kept;
    for (Document& d : split.docs) {
      if (std::find(include.begin(), include.end(), d.label) != include.end()) kept.push_back(std::move(d));
    }
    split.docs = std::move(kept);
  }
}

TokenizerConfig tokenizer_config(const DataConfig& c) {
  TokenizerConfig t;
  t.kind = resolved_tokenizer(c);
  t.vocab_size = c.vocab_size;
  t.min_freq = c.min_freq;
  t.lowercase = c.lowercase;
  t.split_punctuation = c.split_punctuation;
  t.model_type = c.spm_model_type;
  return t;
}

TokenizedSplit tokenize_split(const std::string& name, const std::vector<Document>& docs,
                              const std::vector<int32_t>& labels, const Tokenizer& tokenizer) {
  TokenizedSplit out;
  out.name = name;
  for (size_t i = 0; i < docs.size(); ++i) {
    const std::vector<int32_t> ids = tokenizer.encode(docs[i].text);
    if (ids.empty()) throw DataError(docs[i].where + ": the text encodes to no tokens");
    const std::vector<int32_t>& positions = docs[i].positions;
    if (!positions.empty() && positions.size() != ids.size())
      throw DataError(docs[i].where + ": " + std::to_string(positions.size()) + " positions (data.positions_field) " +
                      "for a text of " + std::to_string(ids.size()) + " tokens: give one position per token of " +
                      "the run's tokenizer (" + tokenizer.name() + ")");
    out.add(ids, labels[i], positions);
  }
  return out;
}

// Reads or generates, labels, trains the tokenizer and tokenizes.
CachedTokens build(const DataConfig& c, const TokenizerConfig& t, const LoadOptions& options) {
  if (is_sequence_task(c.task)) return sequence_task_tokens(c, options.tokenizer);  // tokens with targets, no labels
  CachedTokens out;
  Utf8Repairs repairs;
  std::vector<DocumentSplit> splits =
      is_listops_task(c.task)      ? listops_documents(listops_task_config(c), c.data_seed, out.generated_attempts)
      : is_separation_task(c.task) ? separation_documents(c, out.generated_attempts)
                                   : read_file_splits(c, repairs);
  out.invalid_utf8 = repairs.count;
  out.invalid_utf8_at = repairs.first_at;
  keep_only_labels(splits, c.include_labels);  // validate(): empty when unlabelled
  for (const DocumentSplit& s : splits) {
    if (s.docs.empty()) {
      throw DataError("split '" + s.name +
                      "' has no documents (check its source, include_labels, and the hash split fractions)");
    }
  }
  const DocumentSplit& train = splits.front();
  const LabelVocab labels = !c.labelled              ? LabelVocab()
                            : options.labels.empty() ? LabelVocab::build(train.docs)
                                                     : LabelVocab(options.labels);
  std::vector<std::vector<int32_t>> label_ids;
  for (const DocumentSplit& s : splits)
    label_ids.push_back(c.labelled ? labels.encode(s.docs, s.name) : std::vector<int32_t>(s.docs.size(), 0));

  std::unique_ptr<Tokenizer> tokenizer;
  if (!options.tokenizer.empty()) {
    tokenizer = load_tokenizer(options.tokenizer);
  } else {
    std::vector<std::string_view> texts;
    for (const Document& d : train.docs) texts.push_back(d.text);
    tokenizer = train_tokenizer(t, texts);
  }
  out.tokenizer = tokenizer->save();
  out.labels = labels.names();
  for (size_t i = 0; i < splits.size(); ++i)
    out.splits.push_back(tokenize_split(splits[i].name, splits[i].docs, label_ids[i], *tokenizer));
  return out;
}

void warn_repairs(int64_t count, const std::string& first_at, const std::string& source,
                  const std::function<void(const std::string&)>& warn) {
  if (count > 0 && warn) {
    warn(first_at + ": invalid UTF-8 replaced by U+FFFD (" + std::to_string(count) + " sequences in " + source + ")");
  }
}

std::string source_name(const DataConfig& c) {
  if (!c.task.empty()) return c.task;
  const std::string& path = c.source_path.empty() ? c.train_path : c.source_path;
  return fs::path(path).stem().string();
}

}  // namespace

std::string resolve_data_dir(const DataConfig& config) {
  if (!config.data_dir.empty()) return config.data_dir;
  const char* env = std::getenv("ROTOR_DATA");
  return env != nullptr && *env != '\0' ? env : "data";
}

WindowConfig window_config(const DataConfig& config, std::string_view name) {
  const bool train = name == "train";
  WindowConfig w;
  w.max_len = train ? config.max_len : eval_max_len(config);
  w.truncation = config.truncation;
  w.random_train_windows = config.random_train_windows;
  w.eval_windows = config.eval_windows;
  w.shuffle_tokens = config.shuffle_tokens;
  return w;
}

BatchConfig batch_config(const DataConfig& config) {
  return BatchConfig{config.batch_size, config.batch_tokens, config.bucket_pool};
}

BatchConfig eval_batch_config(const DataConfig& config, int64_t window_len) {
  BatchConfig b = batch_config(config);
  if (b.batch_tokens == 0 && window_len > config.max_len)
    b.batch_size = std::max<int64_t>(1, b.batch_size * config.max_len / window_len);
  return b;
}

const TokenizedSplit& Dataset::split(std::string_view name) const {
  std::string known;
  for (const TokenizedSplit& s : splits) {
    if (s.name == name) return s;
    known += (known.empty() ? "" : ", ") + s.name;
  }
  throw DataError("no split '" + std::string(name) + "' (splits: " + known + ")");
}

Dataset load_dataset(const DataConfig& config, const LoadOptions& options) {
  config.validate();
  const std::string data_dir = resolve_data_dir(config);
  const DataConfig c =
      config.task.empty() || is_generated_task(config.task) ? config : corpus_task_config(config, data_dir);
  const TokenizerConfig t = tokenizer_config(c);

  Dataset data;
  CachedTokens tokens;
  std::string cache_path;
  std::optional<CachedTokens> cached;
  if (c.cache) {
    data.sources = source_fingerprints(c);
    const std::string key = token_cache_key(c, data.sources, options.tokenizer, options.labels);
    cache_path = token_cache_path(token_cache_dir(c), source_name(c), key);
    cached = load_token_cache(cache_path, key);
    tokens = cached ? std::move(*cached) : build(c, t, options);
    if (!cached) {
      try {
        save_token_cache(cache_path, key, tokens);
      } catch (const DataError& e) {  // a cache is an optimisation: a read-only folder must not stop the run
        if (options.warn) options.warn(std::string(e.what()) + "; the data was tokenized without caching");
        cache_path.clear();
      }
    }
  } else {
    tokens = build(c, t, options);
    data.sources = source_fingerprints(c);  // after the readers, whose messages say more of a bad source
  }
  data.tokenizer = load_tokenizer(tokens.tokenizer);
  if (!tokens.labels.empty()) data.labels = LabelVocab(tokens.labels);  // empty: unlabelled
  data.splits = std::move(tokens.splits);
  if (is_sequence_task(c.task)) check_sequence_windows(c, data.splits);  // max_len is not in the cache key

  DataStats& stats = data.stats;
  stats.source = source_name(c);
  stats.tokenizer = data.tokenizer->name();
  stats.vocab_size = data.tokenizer->vocab_size();
  stats.classes = data.labels.names();
  stats.invalid_utf8 = tokens.invalid_utf8;
  stats.generated_attempts = tokens.generated_attempts;
  stats.from_cache = cached.has_value();
  stats.cache_path = cache_path.empty() ? "" : fs::absolute(cache_path).lexically_normal().string();
  for (const TokenizedSplit& s : data.splits) {
    const WindowConfig w = window_config(c, s.name);
    const int64_t windows = s.name == "train" ? s.num_docs() : static_cast<int64_t>(eval_windows(s, w).size());
    stats.splits.push_back(split_stats(s, data.labels.size(), w.max_len, windows));
  }
  warn_repairs(tokens.invalid_utf8, tokens.invalid_utf8_at, stats.source, options.warn);
  return data;
}

Sampler make_sampler(const Dataset& data, const DataConfig& config, std::string_view name) {
  if (name != "train") return make_eval_sampler(data.split(name), config);
  return Sampler(data.split(name), window_config(config, name), batch_config(config), config.seed, SamplerMode::train);
}

Sampler make_eval_sampler(const TokenizedSplit& split, const DataConfig& config) {
  return Sampler(split, window_config(config, "test"), eval_batch_config(config, eval_max_len(config)), config.seed,
                 SamplerMode::eval);
}

int64_t eval_max_len(const DataConfig& config) {
  return config.eval_max_len > 0 ? config.eval_max_len : config.max_len;
}

std::vector<Document> read_documents(const std::string& path, const DataConfig& config, Labelled labelled,
                                     const std::function<void(const std::string&)>& warn) {
  Utf8Repairs repairs;
  std::vector<Document> docs = read_source(path, config, repairs, labelled);
  warn_repairs(repairs.count, repairs.first_at, path, warn);
  return docs;
}

TokenizedSplit tokenize_documents(const std::string& name, const std::vector<Document>& docs,
                                  const Tokenizer& tokenizer, const LabelVocab* labels) {
  const std::vector<int32_t> ids = labels ? labels->encode(docs, name) : std::vector<int32_t>(docs.size(), 0);
  return tokenize_split(name, docs, ids, tokenizer);
}

}  // namespace rotor

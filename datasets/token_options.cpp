#include "datasets/token_options.h"

#include <type_traits>

#include <fmt/core.h>

#include "datasets/tasks/builtin_tasks.h"
#include "datasets/tasks/sequence_task_data.h"
#include "datasets/token_cache.h"

namespace rotor {
namespace {

template <class T>
std::string text(const T& v) {
  if constexpr (std::is_enum_v<T>) {
    return option_name(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_arithmetic_v<T>) {
    return fmt::format("{}", v);  // shortest round-trip form
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v;
  } else {  // a list: each item with its length, so that no two lists read alike
    std::string out;
    for (const auto& item : v) {
      const std::string t = text(item);
      out += std::to_string(t.size()) + ":" + t + "\n";
    }
    return out;
  }
}

template <class T>
DataOptionEffect changes(std::string key, T DataConfig::*member) {
  return {std::move(key), TokenEffect::changes_tokens, [member](const DataConfig& c) { return text(c.*member); }};
}
template <class Group, class T>
DataOptionEffect changes(std::string key, Group DataConfig::*group, T Group::*member) {
  return {std::move(key), TokenEffect::changes_tokens,
          [group, member](const DataConfig& c) { return text(c.*group.*member); }};
}
DataOptionEffect keeps(std::string key) { return {std::move(key), TokenEffect::keeps_tokens, nullptr}; }

std::vector<DataOptionEffect> rows() {
  using D = DataConfig;
  using G = GeneratedTaskConfig;
  return {
      changes("task", &D::task),
      keeps("data_dir"),  // reaches the tokens through the source paths a task resolves to
      changes("format", &D::format),
      changes("train_path", &D::train_path),
      changes("val_path", &D::val_path),
      changes("test_path", &D::test_path),
      changes("source_path", &D::source_path),
      changes("text_field", &D::text_field),
      changes("label_field", &D::label_field),
      changes("key_field", &D::key_field),
      changes("positions_field", &D::positions_field),
      changes("val_fraction", &D::val_fraction),
      changes("test_fraction", &D::test_fraction),
      changes("include_labels", &D::include_labels),
      changes("data_seed", &D::data_seed),
      changes("train_size", &D::train_size),
      changes("eval_size", &D::eval_size),
      changes("listops.max_depth", &D::listops, &ListOpsConfig::max_depth),
      changes("listops.max_args", &D::listops, &ListOpsConfig::max_args),
      changes("generated.min_len", &D::generated, &G::min_len),
      changes("generated.max_len", &D::generated, &G::max_len),
      changes("generated.test_lengths", &D::generated, &G::test_lengths),
      changes("generated.alphabet", &D::generated, &G::alphabet),
      changes("generated.keys", &D::generated, &G::keys),
      changes("generated.offset", &D::generated, &G::offset),
      changes("generated.positions", &D::generated, &G::positions),
      changes("generated.position_offset", &D::generated, &G::position_offset),
      changes("generated.index_hints", &D::generated, &G::index_hints),
      changes("tokenizer", &D::tokenizer),
      changes("vocab_size", &D::vocab_size),
      changes("min_freq", &D::min_freq),
      changes("lowercase", &D::lowercase),
      changes("split_punctuation", &D::split_punctuation),
      changes("spm_model_type", &D::spm_model_type),
      // Windows, batches and order are drawn from the cached tokens.
      keeps("max_len"),
      keeps("eval_max_len"),
      keeps("lm_blocks"),
      keeps("truncation"),
      keeps("random_train_windows"),
      keeps("eval_windows"),
      keeps("shuffle_tokens"),
      keeps("batch_size"),
      keeps("batch_tokens"),
      keeps("bucket_pool"),
      keeps("seed"),
      keeps("cache"),
      keeps("cache_dir"),
  };
}

// What the options resolve to in code (a preset's splits, the automatic
// tokenizer), so that a changed preset changes the key too.
void add_resolved(CacheKey& key, const DataConfig& c, const std::vector<SourceFingerprint>& sources) {
  key.add("resolved tokenizer", option_name(resolved_tokenizer(c)));
  if (is_sequence_task(c.task)) {
    for (const GeneratedSplit& s : sequence_splits(c))
      key.add("sequence split", fmt::format("{} {} {} {}", s.name, s.size, s.min_len, s.max_len));
  } else if (is_separation_task(c.task)) {
    for (const GeneratedSplit& s : separation_splits(c))
      key.add("generated split", fmt::format("{} {} {} {}", s.name, s.size, s.min_len, s.max_len));
  } else if (is_listops_task(c.task)) {
    const ListOpsConfig l = listops_task_config(c);
    key.add("listops", fmt::format("{} {} {}", l.max_depth, l.max_args, l.balanced));
    for (const ListOpsSplit& s : l.splits)
      key.add("listops split", fmt::format("{} {} {} {}", s.name, s.size, s.min_tokens, s.max_tokens));
  } else {
    for (const SourceFingerprint& f : sources) key.add_hashed(f.path, f.sha1);
  }
}

}  // namespace

const std::vector<DataOptionEffect>& data_option_effects() {
  static const std::vector<DataOptionEffect> table = rows();
  return table;
}

const std::vector<DataOptionEffect>& derived_option_effects() {
  // labelled decides whether labels are read, required and stored (the cached
  // label list and label ids), and how a directory source is read.
  // sequence_layout decides a sequence task's tokens and targets.
  static const std::vector<DataOptionEffect> table{
      changes("labelled", &DataConfig::labelled),
      {"sequence_layout", TokenEffect::changes_tokens, [](const DataConfig& c) {
         return std::string(c.sequence_layout == SequenceLayout::queries ? "queries" : "prompt_answer");
       }}};
  return table;
}

std::string token_cache_key(const DataConfig& resolved, const std::string& saved_tokenizer,
                            const std::vector<std::string>& saved_labels) {
  return token_cache_key(resolved, source_fingerprints(resolved), saved_tokenizer, saved_labels);
}

std::string token_cache_key(const DataConfig& resolved, const std::vector<SourceFingerprint>& sources,
                            const std::string& saved_tokenizer, const std::vector<std::string>& saved_labels) {
  CacheKey key;
  key.add("layout", "dataset 2");
  for (const auto* table : {&data_option_effects(), &derived_option_effects()})
    for (const DataOptionEffect& o : *table)
      if (o.effect == TokenEffect::changes_tokens) key.add(o.key, o.text(resolved));
  add_resolved(key, resolved, sources);
  key.add("saved tokenizer", saved_tokenizer);
  for (const std::string& l : saved_labels) key.add("saved label", l);
  return key.hex();
}

}  // namespace rotor

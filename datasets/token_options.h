#pragma once
// Which data options change the tokens a dataset holds, marked once per
// DataConfig member. The token cache key (token_cache_key) is built from the
// rows marked changes_tokens, so a new option changes the key as soon as it is
// marked; tests fail while a member is not marked either way.
#include <functional>
#include <string>
#include <vector>

#include "datasets/data_config.h"
#include "datasets/source_fingerprint.h"

namespace rotor {

enum class TokenEffect { changes_tokens, keeps_tokens };

struct DataOptionEffect {
  std::string key;  // as in the config's data section: "max_len", "listops.max_depth"
  TokenEffect effect;
  // The value as text, for the cache key; set for changes_tokens rows only.
  std::function<std::string(const DataConfig&)> text;
};

// Every DataConfig option (a key of the config's data section), in declaration order.
const std::vector<DataOptionEffect>& data_option_effects();
// The DataConfig members that are not config keys but set by the trainer
// (labelled, from train.objective), marked the same way.
const std::vector<DataOptionEffect>& derived_option_effects();

// The SHA-1 of everything the tokens depend on: the options marked
// changes_tokens of `resolved` (its task's sources filled in), the tokenizer
// kind they resolve to, the generated splits, the source files' contents, and
// a saved tokenizer and label list (LoadOptions) when given.
std::string token_cache_key(const DataConfig& resolved, const std::string& saved_tokenizer,
                            const std::vector<std::string>& saved_labels);
// The same with the source files' fingerprints already taken (source_fingerprints(resolved)).
std::string token_cache_key(const DataConfig& resolved, const std::vector<SourceFingerprint>& sources,
                            const std::string& saved_tokenizer, const std::vector<std::string>& saved_labels);

}  // namespace rotor

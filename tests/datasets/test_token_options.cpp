// The token-cache key is built from the options marked as changing tokens:
// every DataConfig member is marked one way or the other, and the marks decide
// whether a change misses the cache.
#include <set>
#include <utility>

#include "datasets/token_options.h"
#include "helpers.h"

using namespace rotor;

namespace {

// Converts to any member type, so that T{AnyField, ...} compiles for up to as
// many initialisers as the aggregate T has members (and not one more).
struct AnyField {
  template <class T>
  operator T() const;  // declared only: used in unevaluated contexts
};

template <class T, class... Fields>
constexpr auto initialisable(int) -> decltype(T{std::declval<Fields>()...}, bool()) {
  return true;
}
template <class T, class... Fields>
constexpr bool initialisable(...) {
  return false;
}

template <class T, class... Fields>
constexpr size_t member_count() {
  if constexpr (initialisable<T, Fields..., AnyField>(0))
    return member_count<T, Fields..., AnyField>();
  else
    return sizeof...(Fields);
}

std::string key_of(const DataConfig& c) { return token_cache_key(c, "", {}); }

}  // namespace

TEST_CASE("token options: every DataConfig member is marked as changing tokens or not", "[datasets][cache]") {
  std::set<std::string> members, generated;
  for (const auto* table : {&data_option_effects(), &derived_option_effects()}) {
    for (const DataOptionEffect& o : *table) {
      INFO(o.key);
      CHECK((o.effect == TokenEffect::changes_tokens) == static_cast<bool>(o.text));
      members.insert(o.key.substr(0, o.key.find('.')));
      if (o.key.rfind("generated.", 0) == 0) generated.insert(o.key);
    }
  }
  // A member added to DataConfig (or GeneratedTaskConfig) without a row in either table fails these counts.
  CHECK(member_count<DataConfig>() == members.size());
  CHECK(member_count<GeneratedTaskConfig>() == generated.size());
  CHECK(members.size() + 1 < data_option_effects().size());  // the counter counts: nested groups have rows of their own
}

TEST_CASE("token options: the marks decide whether the cache key changes", "[datasets][cache]") {
  DataConfig base;
  base.task = "listops-easy";
  const std::string key = key_of(base);
  CHECK(key_of(base) == key);
  for (const auto& change : std::vector<std::pair<std::string, void (*)(DataConfig&)>>{
           {"max_len", [](DataConfig& c) { c.max_len = 7; }},
           {"eval_windows", [](DataConfig& c) { c.eval_windows = EvalWindows::all; }},
           {"batch_size", [](DataConfig& c) { c.batch_size = 3; }},
           {"seed", [](DataConfig& c) { c.seed = 5; }},
           {"cache_dir", [](DataConfig& c) { c.cache_dir = "elsewhere"; }}}) {
    INFO(change.first);
    DataConfig c = base;
    change.second(c);
    CHECK(key_of(c) == key);
  }
  for (const auto& change : std::vector<std::pair<std::string, void (*)(DataConfig&)>>{
           {"tokenizer", [](DataConfig& c) { c.tokenizer = TokenizerKind::byte; }},
           {"spm_model_type", [](DataConfig& c) { c.spm_model_type = SpmModelType::bpe; }},
           {"format", [](DataConfig& c) { c.format = DataFormat::csv; }},
           {"data_seed", [](DataConfig& c) { c.data_seed = 1; }},
           {"generated.test_lengths", [](DataConfig& c) { c.generated.test_lengths = {128}; }},
           {"include_labels", [](DataConfig& c) { c.include_labels = {"a"}; }}}) {
    INFO(change.first);
    DataConfig c = base;
    change.second(c);
    CHECK(key_of(c) != key);
  }
}

TEST_CASE("DataConfig::validate names the data key", "[datasets][bad]") {
  const auto error_of = [](void (*change)(DataConfig&)) {
    DataConfig c;
    change(c);
    return test::data_error_of([&] { c.validate(); });
  };
  CHECK_NOTHROW(DataConfig().validate());
  CHECK(error_of([](DataConfig& c) { c.max_len = 0; }) == "data.max_len: expected at least 1, got 0");
  CHECK(error_of([](DataConfig& c) { c.eval_max_len = -1; }) ==
        "data.eval_max_len: expected 0 (= max_len) or a positive length");
  CHECK(error_of([](DataConfig& c) { c.batch_size = 0; }) == "data.batch_size: expected at least 1");
  CHECK(error_of([](DataConfig& c) { c.min_freq = 0; }) == "data.min_freq: expected at least 1");
  CHECK(error_of([](DataConfig& c) { c.val_fraction = c.test_fraction = 0.5; }) ==
        "data.val_fraction: val_fraction + test_fraction must be in [0, 1)");
  CHECK(error_of([](DataConfig& c) { c.split_punctuation = true; }) ==
        "data.split_punctuation: applies to the vocab tokenizer only (tokenizer is byte)");
  DataConfig generated;  // the automatic tokenizer is vocab for generated tasks
  generated.task = "listops-easy";
  generated.lowercase = true;
  CHECK_NOTHROW(generated.validate());
}

#include "datasets/tasks/builtin_tasks.h"

#include <algorithm>
#include <filesystem>

#include "datasets/data_error.h"
#include "datasets/tasks/sequence_task_data.h"

namespace rotor {
namespace {

ListOpsConfig listops_preset(std::string_view task) {
  ListOpsConfig c;  // LRA defaults: listops-2k
  if (task == "listops-easy") {
    // Shallow and short so that a tiny model learns it within minutes; every
    // tree of at least 8 tokens nests at least one operator.
    c.max_depth = 3;
    c.max_args = 5;
    c.splits = {{"train", 10000, 8, 64}, {"val", 1000, 8, 64}, {"test", 1000, 8, 64}};
  } else if (task == "listops-short") {
    // Shallow (depth <= 4) so that a small model learns it in minutes, with up
    // to 30 arguments so that trees reach the 1024-token test split (depth 4
    // with 5 arguments stays under 188 tokens). Balanced: MIN and MAX over
    // many arguments would otherwise make 0 and 9 over half of the long splits.
    c.max_depth = 4;
    c.max_args = 30;
    c.balanced = true;
    c.splits = {{"train", 10000, 16, 128},    {"val", 1000, 16, 128},       {"test", 1000, 16, 128},
                {"test_256", 1000, 129, 256}, {"test_512", 1000, 257, 512}, {"test_1024", 1000, 513, 1024}};
  } else if (task == "listops-512") {
    c.splits = {{"train", 96000, 101, 512}, {"val", 2000, 101, 512}, {"test", 2000, 101, 512}};
  } else if (task == "listops-extrap") {
    c.splits = {{"train", 96000, 501, 1000},
                {"val", 2000, 501, 1000},
                {"test", 2000, 1001, 2000},
                {"test_4k", 2000, 2001, 4096}};
  }
  return c;
}

struct CorpusTask {
  const char* name;
  const char* label_field;  // nullptr: unlabelled text, for language models only
};

constexpr CorpusTask kCorpusTasks[] = {
    {"brown", "genre"}, {"brown-4", "genre4"}, {"sotu", "period"}, {"austen", nullptr}};
constexpr const char* kListOpsTasks[] = {"listops-easy", "listops-short",  "listops-512",
                                         "listops-2k",   "listops-extrap", "listops"};

std::string join_names() {
  std::string out;
  for (const auto& n : builtin_task_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string fetched_file(const std::string& data_dir, const std::string& corpus, const std::string& file) {
  const std::string path = (std::filesystem::path(data_dir) / corpus / file).string();
  if (!std::filesystem::exists(path)) {
    throw DataError("task '" + corpus + "': '" + path + "' is missing; run tools/fetch/" + corpus +
                    ".sh first (data directory: data_dir, else $ROTOR_DATA, else ./data)");
  }
  return path;
}

}  // namespace

std::vector<std::string> builtin_task_names() {
  std::vector<std::string> names(std::begin(kListOpsTasks), std::end(kListOpsTasks));
  for (const std::string& name : separation_task_names()) names.push_back(name);
  for (const SequenceTask& t : sequence_tasks()) names.emplace_back(t.name);
  for (const CorpusTask& t : kCorpusTasks) names.emplace_back(t.name);
  return names;
}

bool is_listops_task(std::string_view task) {
  for (const char* name : kListOpsTasks) {
    if (task == name) return true;
  }
  return false;
}

bool is_generated_task(std::string_view task) {
  return is_listops_task(task) || is_separation_task(task) || is_sequence_task(task);
}

std::vector<std::string> held_out_split_names(const DataConfig& config) {
  std::vector<std::string> names{"val", "test"};
  const auto add = [&](const std::string& name) {
    if (name != "train" && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  if (is_listops_task(config.task))
    for (const ListOpsSplit& s : listops_task_config(config).splits) add(s.name);
  if (is_separation_task(config.task))
    for (const GeneratedSplit& s : separation_splits(config)) add(s.name);
  if (is_sequence_task(config.task))
    for (const GeneratedSplit& s : sequence_splits(config)) add(s.name);
  return names;
}

std::map<std::string, int64_t> generated_splits_max_tokens(const DataConfig& config) {
  std::map<std::string, int64_t> longest;
  if (is_listops_task(config.task))
    for (const ListOpsSplit& s : listops_task_config(config).splits) longest[s.name] = s.max_tokens;
  if (is_separation_task(config.task))
    for (const GeneratedSplit& s : separation_splits(config)) longest[s.name] = s.max_len;
  if (is_sequence_task(config.task)) longest = sequence_splits_max_tokens(config);
  return longest;
}

ListOpsConfig listops_task_config(const DataConfig& config) {
  ListOpsConfig c = config.task == "listops" ? config.listops : listops_preset(config.task);
  for (ListOpsSplit& s : c.splits) {
    const int64_t size = s.name == "train" ? config.train_size : config.eval_size;
    if (size > 0) s.size = size;
  }
  return c;
}

std::vector<DocumentSplit> listops_documents(const ListOpsConfig& config, uint64_t seed, int64_t& attempts) {
  ListOpsData data = generate_listops(config, seed);
  attempts += data.attempts;
  std::vector<DocumentSplit> out;
  for (size_t i = 0; i < config.splits.size(); ++i) {
    DocumentSplit split{config.splits[i].name, {}};
    for (size_t j = 0; j < data.splits[i].size(); ++j) {
      ListOpsSample& s = data.splits[i][j];
      std::string where = "listops " + split.name + " sample " + std::to_string(j);
      split.docs.push_back(Document{s.text, std::to_string(s.value), std::move(s.text), std::move(where)});
    }
    out.push_back(std::move(split));
  }
  return out;
}

DataConfig corpus_task_config(const DataConfig& config, const std::string& data_dir) {
  for (const CorpusTask& t : kCorpusTasks) {
    if (config.task != t.name) continue;
    if (t.label_field == nullptr && config.labelled) {
      throw DataError("task: '" + config.task + "' is unlabelled text for language models; a classifier needs " +
                      "a labelled task (brown, brown-4, sotu, ...)");
    }
    DataConfig c = config;
    c.format = DataFormat::jsonl;
    c.text_field = "text";
    c.label_field = t.label_field != nullptr ? t.label_field : "";
    c.train_path = c.val_path = c.test_path = c.source_path = "";
    if (config.task == "sotu") {
      // Windows of a speech inherit its split, so the key is the speech.
      c.source_path = fetched_file(data_dir, "sotu", "speeches.jsonl");
      c.key_field = "stem";
      c.val_fraction = c.test_fraction = 0.1;
    } else {
      // Brown's split is by file number, Austen's by chapter number, made by the fetch script.
      const std::string corpus = config.task == "austen" ? "austen" : "brown";
      c.train_path = fetched_file(data_dir, corpus, "train.jsonl");
      c.val_path = fetched_file(data_dir, corpus, "val.jsonl");
      c.test_path = fetched_file(data_dir, corpus, "test.jsonl");
      c.key_field = "id";
    }
    return c;
  }
  throw DataError("task: unknown task '" + config.task + "' (known: " + join_names() + ")");
}

}  // namespace rotor

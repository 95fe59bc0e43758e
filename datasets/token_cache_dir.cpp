#include "datasets/token_cache_dir.h"

#include <cstdlib>
#include <filesystem>

#include "datasets/dataset.h"
#include "datasets/tasks/builtin_tasks.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// $XDG_CACHE_HOME/rotor/tokens, else ~/.cache/rotor/tokens; empty with neither.
std::string user_cache_dir() {
  if (const std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty())
    return (fs::path(xdg) / "rotor" / "tokens").string();
  if (const std::string home = environment("HOME"); !home.empty())
    return (fs::path(home) / ".cache" / "rotor" / "tokens").string();
  return "";
}

}  // namespace

std::string token_cache_dir(const DataConfig& config) {
  if (!config.cache_dir.empty()) return config.cache_dir;
  const bool data_dir_named = !config.data_dir.empty() || !environment("ROTOR_DATA").empty();
  const bool fetched_corpus = !config.task.empty() && !is_generated_task(config.task);
  const std::string beside_data = (fs::path(resolve_data_dir(config)) / "cache").string();
  if (data_dir_named || fetched_corpus) return beside_data;
  const std::string user = user_cache_dir();
  return user.empty() ? beside_data : user;
}

}  // namespace rotor

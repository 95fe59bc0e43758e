#include "storage/checkpoint_directory.h"

#include <fmt/core.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "storage/checkpoint_fs.h"

namespace rotor {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLatest = "latest";
constexpr const char* kBest = "best";

std::string file_name_for_step(int64_t step) { return fmt::format("step-{:08}.h5", step); }

// "step-00001234.h5" -> 1234; anything else (temporaries included) -> nullopt.
std::optional<int64_t> step_of(const std::string& name) {
  long long step = -1;
  int used = 0;
  if (std::sscanf(name.c_str(), "step-%18lld.h5%n", &step, &used) != 1 || step < 0 ||
      static_cast<size_t>(used) != name.size() || file_name_for_step(step) != name) {
    return std::nullopt;
  }
  return step;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// The file name a `latest` or `best` pointer holds, without its newline.
std::string read_pointer(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return trim(text.str());
}

// The checkpoint file a pointer names, next to the pointer.
std::string follow_pointer(const fs::path& pointer) {
  const std::string name = read_pointer(pointer.string());
  if (!step_of(name)) {
    throw CheckpointError(pointer.string() + ": '" + name +
                          "' is not a checkpoint file name (expected step-NNNNNNNN.h5)");
  }
  return (pointer.parent_path() / name).string();
}

bool process_is_gone(long pid) { return pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH); }

}  // namespace

CheckpointDirectory::CheckpointDirectory(std::string run_dir) : dir_(std::move(run_dir) + "/checkpoints") {}

std::string CheckpointDirectory::path_for_step(int64_t step) const {
  if (step < 0) throw CheckpointError(dir_ + ": cannot name a checkpoint for negative step " + std::to_string(step));
  return dir_ + "/" + file_name_for_step(step);
}

std::string CheckpointDirectory::save(int64_t step, const CheckpointContents& contents, int keep_last,
                                      int64_t best_step) {
  const std::string path = path_for_step(step);
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw CheckpointError(dir_ + ": cannot create the checkpoint folder: " + ec.message());

  write_checkpoint(path, contents);
  point_at(step, best_step, keep_last);
  return path;
}

std::vector<std::string> CheckpointDirectory::point_at(int64_t step, int64_t best_step, int keep_last) {
  std::vector<std::string> changed;
  repoint(kLatest, step, changed);
  std::error_code ec;
  if (best_step >= 0 && fs::is_regular_file(path_for_step(best_step), ec)) repoint(kBest, best_step, changed);
  checkpoint_fs::crash_point("before-prune", dir_);

  // Only now that the new file is committed and `latest` names it.
  if (keep_last > 0) {
    std::vector<std::pair<int64_t, std::string>> files = list();
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t i = static_cast<size_t>(keep_last); i < files.size(); ++i) {
      if (files[i].first == step || files[i].first == best_step) continue;
      std::remove(files[i].second.c_str());
    }
  }
  remove_stale_temporaries();
  return changed;
}

void CheckpointDirectory::repoint(const char* pointer, int64_t step, std::vector<std::string>& changed) const {
  const std::string path = dir_ + "/" + pointer;
  const std::string want = file_name_for_step(step);
  std::error_code ec;
  const std::string was = fs::is_regular_file(path, ec) ? read_pointer(path) : "";
  if (was == want) return;
  checkpoint_fs::write_file_atomically(path, want + "\n");
  if (!was.empty()) changed.push_back(path + " named " + was + "; now " + want);
}

void CheckpointDirectory::remove_stale_temporaries() const {
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    long pid = 0;
    const std::string name = it->path().filename().string();
    if (checkpoint_fs::is_temp_name(name, &pid) && (pid == static_cast<long>(::getpid()) || process_is_gone(pid))) {
      fs::remove(it->path(), ec);
      ec.clear();
    }
  }
}

std::vector<std::pair<int64_t, std::string>> CheckpointDirectory::list() const {
  std::vector<std::pair<int64_t, std::string>> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (const auto step = step_of(name)) out.emplace_back(*step, dir_ + "/" + name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

ResolvedCheckpoint resolve_checkpoint(const std::string& path, std::vector<std::string>* warnings,
                                      const RecordedBestStep& best_step_of) {
  const fs::path p(path);
  std::error_code ec;
  if (p.filename() == kLatest && fs::is_regular_file(p, ec)) return {follow_pointer(p), "latest"};
  const bool best_pointer = p.filename() == kBest && fs::is_regular_file(p, ec);
  if (!best_pointer && !fs::is_directory(p, ec)) return {path, ""};
  const fs::path run_dir = best_pointer                    ? p.parent_path().parent_path()
                           : p.filename() == "checkpoints" ? p.parent_path()
                                                           : p;
  const CheckpointDirectory dir(run_dir.string());
  const std::optional<std::string> newest = dir.newest_valid(warnings);
  if (!newest) throw CheckpointError(path + ": no valid checkpoint in " + dir.dir());
  const int64_t best_step = best_step_of(*newest);
  if (best_step < 0) return {*newest, "latest: no evaluation ran, so there is no best checkpoint"};
  // The best checkpoint or an error: another file would silently answer a
  // different question.
  const std::string file = dir.path_for_step(best_step);
  const fs::path best = fs::path(dir.dir()) / kBest;
  const bool pointer_agrees = fs::is_regular_file(best, ec) && read_pointer(best.string()) == fs::path(file).filename();
  if (!pointer_agrees && warnings != nullptr)
    warnings->push_back(
        fmt::format("{} does not name {}, which {} records as the best on validation (a save was "
                    "interrupted; resuming the run repairs the pointer): using {}",
                    best.string(), fs::path(file).filename().string(), *newest, file));
  std::string why;
  if (!is_valid_checkpoint(file, &why)) {
    const std::string named =
        pointer_agrees ? best.string() + " names " + file : *newest + " records as the best " + file;
    throw CheckpointError(named + ": " + why + " (name a checkpoint file or " + dir.dir() + "/latest instead)");
  }
  return {file, "best on validation"};
}

std::optional<std::string> CheckpointDirectory::newest_valid(std::vector<std::string>* warnings) const {
  auto warn = [&](const std::string& what) {
    if (warnings != nullptr) warnings->push_back(what);
  };
  std::string why;
  std::string tried;
  const std::string latest_path = dir_ + "/" + kLatest;
  std::error_code ec;
  if (fs::is_regular_file(latest_path, ec)) {
    const std::string name = read_pointer(latest_path);
    if (!step_of(name)) {
      warn("skipping " + latest_path + ": '" + name + "' is not a checkpoint file name (expected step-NNNNNNNN.h5)");
    } else {
      tried = dir_ + "/" + name;
      if (is_valid_checkpoint(tried, &why)) return tried;
      warn("skipping " + tried + ": " + why);
    }
  }
  std::vector<std::pair<int64_t, std::string>> files = list();
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    if (it->second == tried) continue;
    if (is_valid_checkpoint(it->second, &why)) return it->second;
    warn("skipping " + it->second + ": " + why);
  }
  return std::nullopt;
}

}  // namespace rotor

#include "datasets/source_fingerprint.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "datasets/data_error.h"
#include "datasets/document.h"
#include "datasets/folder_reader.h"
#include "datasets/sha1.h"
#include "datasets/tasks/builtin_tasks.h"
#include "datasets/tasks/generated_tasks.h"
#include "datasets/text_reader.h"

namespace fs = std::filesystem;

namespace rotor {
namespace {

void add_files(const std::string& path, const DataConfig& c, std::vector<SourceFingerprint>& out) {
  std::error_code ec;
  if (path.empty()) return;
  std::vector<std::string> files{path};
  if (fs::is_directory(path, ec))
    files = resolved_format(path, c) == DataFormat::text ? text_files(path) : folder_files(path);
  for (const std::string& file : files) out.push_back({file, sha1_hex(read_file_bytes(file))});
}

bool has_path(const std::vector<SourceFingerprint>& list, const std::string& path) {
  return std::any_of(list.begin(), list.end(), [&](const SourceFingerprint& f) { return f.path == path; });
}

}  // namespace

std::vector<SourceFingerprint> source_fingerprints(const DataConfig& c) {
  std::vector<SourceFingerprint> out;
  if (is_generated_task(c.task)) return out;
  for (const std::string* path : {&c.train_path, &c.val_path, &c.test_path, &c.source_path}) add_files(*path, c, out);
  return out;
}

std::string fingerprints_text(const std::vector<SourceFingerprint>& sources) {
  std::string text;
  for (const SourceFingerprint& f : sources) text += f.sha1 + "  " + f.path + "\n";
  return text;
}

std::vector<SourceFingerprint> parse_fingerprints(const std::string& text, const std::string& where) {
  std::vector<SourceFingerprint> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t gap = line.find("  ");
    if (gap != 40 || line.find_first_not_of("0123456789abcdef") != gap || gap + 2 >= line.size())
      throw DataError(where + ": expected '<40 hex digits>  <path>' per line, got '" + line + "'");
    out.push_back({line.substr(gap + 2), line.substr(0, gap)});
  }
  return out;
}

std::string describe_data_change(const std::vector<SourceFingerprint>& recorded,
                                 const std::vector<SourceFingerprint>& current) {
  if (recorded.size() == current.size()) {
    for (size_t i = 0; i < current.size(); ++i)
      if (recorded[i].sha1 != current[i].sha1)
        return current[i].path + " changed (SHA-1 " + recorded[i].sha1.substr(0, 12) + "... then, " +
               current[i].sha1.substr(0, 12) + "... now)";
    return "";
  }
  for (const SourceFingerprint& f : current)
    if (!has_path(recorded, f.path)) return f.path + " is new";
  for (const SourceFingerprint& f : recorded)
    if (!has_path(current, f.path)) return f.path + " is gone";
  return "the list of data files changed";  // only a path given twice gets here
}

}  // namespace rotor

#include "trainers/run/json_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace rotor {
namespace {

template <typename Json>
Json parse_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw RunFileError(path + ": cannot open");
  try {
    return Json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw RunFileError(path + ": invalid JSON: " + e.what());
  }
}

}  // namespace

nlohmann::json read_json_file(const std::string& path) { return parse_file<nlohmann::json>(path); }

nlohmann::ordered_json read_ordered_json_file(const std::string& path) {
  return parse_file<nlohmann::ordered_json>(path);
}

void write_text_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp-" + std::to_string(getpid());
  {
    errno = 0;
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    if (!out.flush()) {
      const int err = errno;  // the failed open or write's: a full or read-only disk, a missing folder
      std::remove(tmp.c_str());
      throw RunFileError(path + ": cannot write: " + (err != 0 ? std::strerror(err) : "a write failed"));
    }
  }
  std::filesystem::rename(tmp, path);
}

void write_json_file(const std::string& path, const nlohmann::json& value) {
  write_text_file(path, value.dump(2) + "\n");
}

}  // namespace rotor

#pragma once
// The config tests' helpers: a config file written into a test folder, and the
// message load_config() throws for one ("" when it loads).
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "trainers/config/config_loader.h"

namespace rotor::config_test {

inline std::string write(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

inline std::string error_of(const std::string& path, const std::vector<std::string>& overrides = {}) {
  try {
    load_config(path, overrides);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace rotor::config_test

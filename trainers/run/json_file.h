#pragma once
// JSON files of a run or study directory: read with errors that name the file,
// written atomically (a temporary renamed over the target) so that an
// interrupted run or study never leaves half a file behind.
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "trainers/config/config.h"

namespace rotor {

// A file of a run or study directory is missing, not JSON, or not the record
// it should hold. The message names the file and what was expected.
struct RunFileError : ConfigError {
  using ConfigError::ConfigError;
};

// Throws RunFileError naming the file when it is missing or not JSON.
nlohmann::json read_json_file(const std::string& path);
nlohmann::ordered_json read_ordered_json_file(const std::string& path);  // keeps the file's field order
void write_json_file(const std::string& path, const nlohmann::json& value);
void write_text_file(const std::string& path, const std::string& text);

// The record (its from_json) in the file at `path`; a JSON value that is not
// the record throws RunFileError "<path>: not <what> (<reason>)<advice>".
template <typename Record, typename Json = nlohmann::json>
Record read_record_file(const std::string& path, const std::string& what, const std::string& advice = "") {
  Json j;
  if constexpr (std::is_same_v<Json, nlohmann::ordered_json>) {
    j = read_ordered_json_file(path);
  } else {
    j = read_json_file(path);
  }
  try {
    return j.template get<Record>();
  } catch (const nlohmann::json::exception& e) {
    throw RunFileError(path + ": not " + what + " (" + e.what() + ")" + advice);
  }
}

}  // namespace rotor

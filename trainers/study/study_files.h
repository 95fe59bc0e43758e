#pragma once
// JSON files of a study: read with errors that name the file, written
// atomically (a temporary renamed over the target) so that an interrupted
// study never leaves half a file behind.
#include <string>

#include <nlohmann/json.hpp>

namespace rotor {

// Throws ConfigError naming the file when it is missing or not JSON.
nlohmann::json read_json_file(const std::string& path);
void write_json_file(const std::string& path, const nlohmann::json& value);
void write_text_file(const std::string& path, const std::string& text);

}  // namespace rotor

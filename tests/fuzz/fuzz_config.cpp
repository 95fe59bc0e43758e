// libFuzzer target: the YAML config loader (parse_config_text), as for a
// config file's contents. Any input must give a Config or a ConfigError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "trainers/config/config_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    rotor::parse_config_text(text, "fuzz.yaml");
  } catch (const rotor::Error&) {
  }
  return 0;
}

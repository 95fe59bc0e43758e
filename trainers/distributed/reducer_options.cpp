#include "trainers/distributed/reducer_options.h"

#include <cstdlib>
#include <string>

#include "trainers/config/config.h"

namespace rotor {

ReducerOptions reducer_options_from_environment() {
  ReducerOptions options;
  if (const char* overlap = std::getenv("ROTOR_MPI_OVERLAP")) {
    const std::string v = overlap;
    if (v != "0" && v != "1") throw ConfigError("ROTOR_MPI_OVERLAP is '" + v + "'; expected 0 or 1");
    options.overlap = v == "1";
  }
  if (const char* mb = std::getenv("ROTOR_MPI_BUCKET_MB")) {
    char* end = nullptr;
    const double v = std::strtod(mb, &end);
    if (end == mb || *end != '\0' || !(v > 0) || v > 4096)
      throw ConfigError(std::string("ROTOR_MPI_BUCKET_MB is '") + mb + "'; expected a size in MiB in (0, 4096]");
    options.bucket_bytes = static_cast<int64_t>(v * (1 << 20));
  }
  return options;
}

}  // namespace rotor

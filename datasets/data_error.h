#pragma once
// The datasets layer's error type.
#include "engine/error.h"

namespace rotor {

// Bad input data or data configuration. The message names the file and the
// 1-based line (or the config key) and says what was expected, so a person can
// fix the input without reading the code.
struct DataError : Error {
  using Error::Error;
};

}  // namespace rotor

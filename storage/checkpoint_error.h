#pragma once
// Errors of the checkpoint storage layer: unreadable, corrupt, foreign or too
// new checkpoint files, and failures to write or commit one. Messages start
// with the file's path and say what was expected.
#include "engine/error.h"

namespace rotor {

struct CheckpointError : Error {
  using Error::Error;
};

}  // namespace rotor

#pragma once
// Typed errors. Every layer throws a subclass of rotor::Error; the CLI catches
// Error once and prints what() for people. Messages name the thing that was
// wrong (file, line, key, op, shape) and what was expected.
#include <stdexcept>
#include <string>

namespace rotor {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bad tensor shapes or arguments passed to an op.
struct ShapeError : Error {
  using Error::Error;
};

// A value outside its valid domain (bad probability, unknown enum name...).
struct ValueError : Error {
  using Error::Error;
};

}  // namespace rotor

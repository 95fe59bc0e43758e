#pragma once
// Files written for the user by `rotor eval --output` and `rotor predict
// --output`: complete or not there at all. A regular file (or a new one) is
// written to a temporary next to it, flushed, fsynced and renamed over it; a
// device or pipe (/dev/stdout, a FIFO) is written in place, every write
// checked. Any failure throws Error "<path>: cannot write: <reason>" and no
// partial file is left under the name.
#include <string>

namespace rotor {

void write_output_file(const std::string& path, const std::string& text);

}  // namespace rotor

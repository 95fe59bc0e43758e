// libFuzzer target: the checkpoint reader (read_checkpoint over a whole
// file, integrity check included). Any input must give contents or a
// CheckpointError.
#include "input_file.h"
#include "storage/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = rotor::fuzz::input_file(data, size, ".h5");
  try {
    rotor::read_checkpoint(path);
  } catch (const rotor::CheckpointError&) {
  }
  return 0;
}

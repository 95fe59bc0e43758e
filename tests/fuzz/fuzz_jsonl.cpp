// libFuzzer target: the JSONL reader (read_jsonl over a whole file). Any input
// must give documents or a DataError.
#include "datasets/data_error.h"
#include "datasets/jsonl_reader.h"
#include "input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = rotor::fuzz::input_file(data, size, ".jsonl");
  rotor::Utf8Repairs repairs;
  try {
    rotor::read_jsonl(path, rotor::FieldNames{}, repairs);
  } catch (const rotor::DataError&) {
  }
  return 0;
}

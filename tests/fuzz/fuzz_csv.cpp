// libFuzzer target: the CSV/TSV reader (read_csv over a whole file). The
// first byte picks the delimiter. Any input must give documents or a DataError.
#include "datasets/csv_reader.h"
#include "datasets/data_error.h"
#include "input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const char delimiter = (data[0] & 1) ? '\t' : ',';
  const std::string path = rotor::fuzz::input_file(data + 1, size - 1, ".csv");
  rotor::Utf8Repairs repairs;
  try {
    rotor::read_csv(path, delimiter, rotor::FieldNames{}, repairs);
  } catch (const rotor::DataError&) {
  }
  return 0;
}

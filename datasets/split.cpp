#include "datasets/split.h"

#include <cmath>
#include <string>

#include "datasets/data_error.h"
#include "datasets/sha1.h"

namespace rotor {
namespace {

int percent(double fraction, const char* name) {
  if (!(fraction >= 0.0 && fraction < 1.0)) {
    throw DataError(std::string(name) + ": expected a fraction in [0, 1), got " + std::to_string(fraction));
  }
  return static_cast<int>(std::lround(fraction * 100.0));
}

}  // namespace

int hash_bucket(std::string_view key) {
  Sha1 h;
  h.update(key);
  const auto d = h.digest();
  const uint32_t first =
      static_cast<uint32_t>(d[0]) << 24 | static_cast<uint32_t>(d[1]) << 16 | static_cast<uint32_t>(d[2]) << 8 | d[3];
  return static_cast<int>(first % 100);
}

SplitPart hash_split(std::string_view key, double val_fraction, double test_fraction) {
  const int val = percent(val_fraction, "val_fraction");
  const int test = percent(test_fraction, "test_fraction");
  if (val + test >= 100) throw DataError("val_fraction + test_fraction: expected less than 1 (nothing left for train)");
  const int bucket = hash_bucket(key);
  if (bucket < 100 - val - test) return SplitPart::train;
  return bucket < 100 - test ? SplitPart::val : SplitPart::test;
}

SplitDocuments split_by_hash(std::vector<Document> docs, double val_fraction, double test_fraction) {
  SplitDocuments out;
  for (Document& doc : docs) {
    switch (hash_split(doc.key, val_fraction, test_fraction)) {
      case SplitPart::train:
        out.train.push_back(std::move(doc));
        break;
      case SplitPart::val:
        out.val.push_back(std::move(doc));
        break;
      case SplitPart::test:
        out.test.push_back(std::move(doc));
        break;
    }
  }
  return out;
}

}  // namespace rotor

#pragma once
// Deterministic train/val/test assignment by a hash of each document's key:
// a document's split depends on its key alone, never on the seed, the order
// of the file or the other documents, so it does not change between runs.
#include <string_view>
#include <vector>

#include "datasets/document.h"

namespace rotor {

enum class SplitPart { train, val, test };

// Bucket 0..99 of a key: the first 32 bits of SHA-1(key) modulo 100, i.e.
// int(sha1(key).hexdigest()[:8], 16) % 100 as in the reference notes.
int hash_bucket(std::string_view key);

// Buckets below 100 * (1 - val - test) are train, the next 100 * val are val,
// the rest test (fractions are rounded to whole percents; 0.1/0.1 gives the
// reference 80/10/10 split).
SplitPart hash_split(std::string_view key, double val_fraction, double test_fraction);

struct SplitDocuments {
  std::vector<Document> train, val, test;
};

// Distributes `docs` by hash_split of their keys, keeping their order.
SplitDocuments split_by_hash(std::vector<Document> docs, double val_fraction, double test_fraction);

}  // namespace rotor

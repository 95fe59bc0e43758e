#pragma once
// The class names of a task and their indices. Built from the training split
// and saved with the run, so that evaluation maps labels exactly as training did.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/document.h"

namespace rotor {

class LabelVocab {
 public:
  LabelVocab() = default;
  // Uses `names` as given (index = position), e.g. from a saved run.
  // Throws DataError on duplicates or fewer than two names.
  explicit LabelVocab(std::vector<std::string> names);

  // The distinct labels of the training documents: in numeric order when all
  // are integers (so label "3" gets index 3 for 0..9), otherwise sorted as
  // strings. Throws DataError for a single-class training set.
  static LabelVocab build(const std::vector<Document>& train);

  int32_t size() const { return static_cast<int32_t>(names_.size()); }
  const std::vector<std::string>& names() const { return names_; }
  const std::string& name(int32_t index) const { return names_.at(static_cast<size_t>(index)); }
  // Index of `label`, or -1 if it is not a class.
  int32_t find(std::string_view label) const;

  // Label indices of a split's documents. Throws DataError listing every label
  // of `split_name` that is not a class (e.g. never seen in training).
  std::vector<int32_t> encode(const std::vector<Document>& docs, const std::string& split_name) const;

  // One name per line.
  std::string save() const;
  static LabelVocab load(std::string_view bytes);

 private:
  std::vector<std::string> names_;
};

}  // namespace rotor

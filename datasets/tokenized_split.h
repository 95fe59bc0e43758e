#pragma once
// One split after tokenization, stored flat: document i is
// tokens[offsets[i] .. offsets[i + 1]) with class index labels[i].
#include <cstdint>
#include <string>
#include <vector>

namespace rotor {

struct TokenizedSplit {
  std::string name;  // "train", "val", "test", or an extra test split's name
  std::vector<int32_t> tokens;
  std::vector<int64_t> offsets{0};
  std::vector<int32_t> labels;

  int64_t num_docs() const { return static_cast<int64_t>(labels.size()); }
  int64_t doc_length(int64_t doc) const { return offsets[doc + 1] - offsets[doc]; }
  const int32_t* doc_tokens(int64_t doc) const { return tokens.data() + offsets[doc]; }

  void add(const std::vector<int32_t>& doc, int32_t label) {
    tokens.insert(tokens.end(), doc.begin(), doc.end());
    offsets.push_back(static_cast<int64_t>(tokens.size()));
    labels.push_back(label);
  }
};

}  // namespace rotor

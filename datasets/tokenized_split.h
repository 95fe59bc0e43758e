#pragma once
// One split after tokenization, stored flat: document i is
// tokens[offsets[i] .. offsets[i + 1]) with class index labels[i]. A split of
// a sequence task (tasks/sequence_layout.h) also has a target per token,
// targets[t]: the token id position t must predict, kNoTarget where none, and
// with coupled positions (tasks/coupled_positions.h) or positions from the
// data file (data.positions_field) positions[t], token t's.
#include <cstdint>
#include <string>
#include <vector>

namespace rotor {

inline constexpr int32_t kNoTarget = -1;

struct TokenizedSplit {
  std::string name;  // "train", "val", "test", or an extra test split's name
  std::vector<int32_t> tokens;
  std::vector<int64_t> offsets{0};
  std::vector<int32_t> labels;
  std::vector<int32_t> targets;    // empty, or one per token
  std::vector<int32_t> positions;  // empty (token t of a document at t), or one per token

  bool has_targets() const { return !targets.empty(); }
  const int32_t* doc_targets(int64_t doc) const { return targets.data() + offsets[doc]; }
  bool has_positions() const { return !positions.empty(); }
  const int32_t* doc_positions(int64_t doc) const { return positions.data() + offsets[doc]; }

  int64_t num_docs() const { return static_cast<int64_t>(labels.size()); }
  int64_t doc_length(int64_t doc) const { return offsets[doc + 1] - offsets[doc]; }
  const int32_t* doc_tokens(int64_t doc) const { return tokens.data() + offsets[doc]; }

  // `doc_positions`: empty, or one per token (in every document of the split, or in none).
  void add(const std::vector<int32_t>& doc, int32_t label, const std::vector<int32_t>& doc_positions = {}) {
    positions.insert(positions.end(), doc_positions.begin(), doc_positions.end());
    tokens.insert(tokens.end(), doc.begin(), doc.end());
    offsets.push_back(static_cast<int64_t>(tokens.size()));
    labels.push_back(label);
  }
  // A document of a sequence task: its tokens, their targets and (coupled) positions, label 0.
  void add_with_targets(const std::vector<int32_t>& doc, const std::vector<int32_t>& doc_targets,
                        const std::vector<int32_t>& doc_positions = {}) {
    add(doc, 0, doc_positions);
    targets.insert(targets.end(), doc_targets.begin(), doc_targets.end());
  }
};

}  // namespace rotor

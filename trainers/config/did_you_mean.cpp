#include "trainers/config/did_you_mean.h"

#include <algorithm>

namespace rotor {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::string::npos;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  if (best.empty() || best_d > std::max<size_t>(2, word.size() / 3)) return "";
  return " (did you mean '" + best + "'?)";
}

std::string did_you_mean_key(const std::string& key, const std::vector<std::string>& keys) {
  const std::string leaf = "." + key.substr(key.rfind('.') + 1);
  std::vector<std::string> same_leaf;
  for (const std::string& k : keys)
    if (k.size() > leaf.size() && k.compare(k.size() - leaf.size(), std::string::npos, leaf) == 0)
      same_leaf.push_back(k);
  if (same_leaf.empty()) return did_you_mean(key, keys);
  const auto closest = std::min_element(same_leaf.begin(), same_leaf.end(), [&](const auto& a, const auto& b) {
    return edit_distance(key, a) < edit_distance(key, b);
  });
  return " (did you mean '" + *closest + "'?)";
}

}  // namespace rotor

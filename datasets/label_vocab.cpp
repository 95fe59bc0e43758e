#include "datasets/label_vocab.h"

#include <algorithm>
#include <map>
#include <set>

#include "datasets/data_error.h"

namespace rotor {
namespace {

bool is_integer(const std::string& s) {
  const size_t start = !s.empty() && s[0] == '-' ? 1 : 0;
  return s.size() > start && s.size() - start <= 18 &&
         std::all_of(s.begin() + static_cast<std::ptrdiff_t>(start), s.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

LabelVocab::LabelVocab(std::vector<std::string> names) : names_(std::move(names)) {
  if (names_.size() < 2) {
    throw DataError("label vocabulary: expected at least two classes, got " + std::to_string(names_.size()));
  }
  std::set<std::string> seen;
  for (const auto& n : names_) {
    if (n.empty() || n.find('\n') != std::string::npos)
      throw DataError("label vocabulary: invalid class name '" + n + "'");
    if (!seen.insert(n).second) throw DataError("label vocabulary: duplicate class '" + n + "'");
  }
}

LabelVocab LabelVocab::build(const std::vector<Document>& train) {
  std::map<std::string, int64_t> counts;
  for (const Document& d : train) ++counts[d.label];
  if (counts.empty()) throw DataError("training split is empty");
  if (counts.size() == 1) {
    throw DataError("training split has a single class '" + counts.begin()->first + "' (" +
                    std::to_string(counts.begin()->second) + " documents); classification needs at least two");
  }
  std::vector<std::string> names;
  for (const auto& entry : counts) names.push_back(entry.first);
  if (std::all_of(names.begin(), names.end(), is_integer)) {
    std::sort(names.begin(), names.end(),
              [](const std::string& a, const std::string& b) { return std::stoll(a) < std::stoll(b); });
  }
  return LabelVocab(std::move(names));
}

int32_t LabelVocab::find(std::string_view label) const {
  const auto it = std::find(names_.begin(), names_.end(), label);
  return it == names_.end() ? -1 : static_cast<int32_t>(it - names_.begin());
}

std::vector<int32_t> LabelVocab::encode(const std::vector<Document>& docs, const std::string& split_name) const {
  std::vector<int32_t> out;
  out.reserve(docs.size());
  std::map<std::string, std::string> unknown;  // label -> where it first occurs
  for (const Document& d : docs) {
    const int32_t index = find(d.label);
    if (index < 0) unknown.emplace(d.label, d.where);
    out.push_back(index);
  }
  if (!unknown.empty()) {
    std::string list;
    for (const auto& [label, where] : unknown) list += (list.empty() ? "'" : ", '") + label + "' (" + where + ")";
    throw DataError("labels in " + split_name + " never seen in train: " + list);
  }
  return out;
}

std::string LabelVocab::save() const {
  std::string out;
  for (const auto& n : names_) out += n + "\n";
  return out;
}

LabelVocab LabelVocab::load(std::string_view bytes) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start < bytes.size()) {
    const size_t end = std::min(bytes.find('\n', start), bytes.size());
    names.emplace_back(bytes.substr(start, end - start));
    start = end + 1;
  }
  return LabelVocab(std::move(names));
}

}  // namespace rotor

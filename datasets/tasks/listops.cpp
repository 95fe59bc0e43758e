#include "datasets/tasks/listops.h"

#include <algorithm>
#include <array>
#include <unordered_set>

#include "datasets/data_error.h"
#include "engine/random.h"

namespace rotor {
namespace {

constexpr double kValueProbability = 0.25;  // LRA's VALUE_P: r > 0.25 makes a leaf
// Token codes while drawing: 0-9 digits, then the operators, then "]".
constexpr const char* kListOpsOperators[] = {"[MIN", "[MAX", "[MED", "[SM"};
constexpr uint8_t kFirstOperator = 10, kClose = 14;
// Give up when the splits are this far from full: the length ranges do not
// suit max_depth and max_args.
constexpr int64_t kMaxDrawsPerSample = 2000;

// The value of an operator over arguments given as a histogram of digits
// (counts[d] arguments equal d): no allocation per tree node.
int32_t apply(int op, const int32_t (&counts)[10]) {
  int32_t n = 0, sum = 0, lo = 9, hi = 0;
  for (int32_t d = 0; d < 10; ++d) {
    if (counts[d] == 0) continue;
    n += counts[d];
    sum += d * counts[d];
    lo = std::min(lo, d);
    hi = std::max(hi, d);
  }
  switch (op) {
    case 0:
      return lo;
    case 1:
      return hi;
    case 2: {                         // int(numpy.median(args)): the two middle values' mean, truncated
      auto nth = [&](int32_t rank) {  // 0-based rank in sorted order
        for (int32_t d = 0; d < 10; ++d) {
          if (rank < counts[d]) return d;
          rank -= counts[d];
        }
        return 9;
      };
      return (nth((n - 1) / 2) + nth(n / 2)) / 2;
    }
    default:
      return sum % 10;
  }
}

class TreeDraw {
 public:
  TreeDraw(const ListOpsConfig& config, const RandomKey& key, int64_t length_cap)
      : config_(config), key_(key), cap_(length_cap) {}

  // Appends the subtree's token codes and returns its value. After the cap is
  // passed the result is meaningless and the caller discards it.
  int32_t gen(int32_t depth) {
    if (too_long()) return 0;
    const double r = depth < config_.max_depth ? key_.uniform_double(next_++) : 1.0;
    if (r > kValueProbability) {
      const auto digit = static_cast<int32_t>(key_.below(next_++, 10));
      codes_.push_back(static_cast<uint8_t>(digit));
      return digit;
    }
    const auto count = 2 + static_cast<int32_t>(key_.below(next_++, static_cast<uint64_t>(config_.max_args - 1)));
    const auto op = static_cast<int>(key_.below(next_++, 4));
    codes_.push_back(static_cast<uint8_t>(kFirstOperator + op));
    int32_t counts[10] = {};
    for (int32_t i = 0; i < count && !too_long(); ++i) ++counts[gen(depth + 1)];
    if (too_long()) return 0;
    codes_.push_back(kClose);
    return apply(op, counts);
  }

  bool too_long() const { return static_cast<int64_t>(codes_.size()) > cap_; }

  ListOpsSample sample(int32_t value) const {
    ListOpsSample s;
    s.value = value;
    s.length = static_cast<int64_t>(codes_.size());
    for (uint8_t code : codes_) {
      if (!s.text.empty()) s.text += ' ';
      if (code < kFirstOperator) {
        s.text += static_cast<char>('0' + code);
      } else {
        s.text += code == kClose ? "]" : kListOpsOperators[code - kFirstOperator];
      }
    }
    return s;
  }

 private:
  const ListOpsConfig& config_;
  RandomKey key_;
  int64_t cap_;
  uint64_t next_ = 0;  // index of the next random draw
  std::vector<uint8_t> codes_;
};

void check(const ListOpsConfig& config) {
  if (config.max_depth < 1) throw DataError("listops.max_depth: expected at least 1");
  if (config.max_args < 2) throw DataError("listops.max_args: expected at least 2");
  if (config.splits.empty() || config.splits.front().name != "train") {
    throw DataError("listops.splits: expected the first split to be 'train'");
  }
  std::unordered_set<std::string> names;
  for (const ListOpsSplit& s : config.splits) {
    const std::string key = "listops split '" + s.name + "'";
    if (!names.insert(s.name).second) throw DataError(key + ": duplicate split name");
    if (s.size < 1) throw DataError(key + ": size must be at least 1");
    if (s.min_tokens < 1 || s.max_tokens < s.min_tokens) {
      throw DataError(key + ": expected 1 <= min_tokens <= max_tokens, got " + std::to_string(s.min_tokens) + ".." +
                      std::to_string(s.max_tokens));
    }
  }
}

// Whether split `i` still takes a tree of `value`.
bool wants(const ListOpsConfig& config, const ListOpsData& data, const std::vector<std::array<int64_t, 10>>& taken,
           size_t i, int32_t value) {
  const int64_t size = config.splits[i].size;
  if (static_cast<int64_t>(data.splits[i].size()) >= size) return false;
  return !config.balanced || taken[i][static_cast<size_t>(value)] < size / 10 + (value < size % 10 ? 1 : 0);
}

}  // namespace

std::optional<ListOpsSample> draw_listops(const ListOpsConfig& config, uint64_t seed, uint64_t attempt,
                                          int64_t length_cap) {
  TreeDraw draw(config, RandomKey{seed, stream_id("listops"), attempt}, length_cap);
  const int32_t value = draw.gen(1);
  if (draw.too_long()) return std::nullopt;
  return draw.sample(value);
}

ListOpsData generate_listops(const ListOpsConfig& config, uint64_t seed) {
  check(config);
  ListOpsData data;
  data.splits.resize(config.splits.size());
  int64_t wanted = 0;
  for (const ListOpsSplit& s : config.splits) wanted += s.size;
  std::unordered_set<std::string> seen;
  std::vector<std::array<int64_t, 10>> per_value(config.splits.size(), std::array<int64_t, 10>{});
  int64_t taken = 0;
  while (taken < wanted) {
    if (data.attempts >= kMaxDrawsPerSample * wanted) {
      throw DataError("listops: only " + std::to_string(taken) + " of " + std::to_string(wanted) + " samples after " +
                      std::to_string(data.attempts) + " draws; the length ranges do not suit max_depth " +
                      std::to_string(config.max_depth) + " and max_args " + std::to_string(config.max_args));
    }
    int64_t cap = 0;  // longest length any unfilled split accepts
    for (size_t i = 0; i < config.splits.size(); ++i) {
      if (static_cast<int64_t>(data.splits[i].size()) < config.splits[i].size) {
        cap = std::max(cap, config.splits[i].max_tokens);
      }
    }
    auto sample = draw_listops(config, seed, static_cast<uint64_t>(data.attempts++), cap);
    if (!sample) continue;
    for (size_t i = 0; i < config.splits.size(); ++i) {
      const ListOpsSplit& s = config.splits[i];
      if (wants(config, data, per_value, i, sample->value) && sample->length >= s.min_tokens &&
          sample->length <= s.max_tokens) {
        if (seen.insert(sample->text).second) {
          ++per_value[i][static_cast<size_t>(sample->value)];
          data.splits[i].push_back(std::move(*sample));
          ++taken;
        }
        break;
      }
    }
  }
  return data;
}

}  // namespace rotor

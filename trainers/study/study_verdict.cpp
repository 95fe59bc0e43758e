#include "trainers/study/study_verdict.h"

#include <algorithm>

#include <fmt/format.h>

namespace rotor {
namespace {

std::string cell_label(const CellStatistics& c) {
  return c.scaling == "none" ? std::to_string(c.length) : fmt::format("{} ({})", c.length, c.scaling);
}

// join({"a", "b", "c"}, ", ", " and ") = "a, b and c".
std::string join(const std::vector<std::string>& items, const std::string& separator, const std::string& last) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? last : separator;
    out += items[i];
  }
  return out;
}

std::string p_band(double p, double alpha) {
  for (const double band : {0.001, 0.01, 0.05})
    if (p < band) return fmt::format("p < {:g}", band);
  return fmt::format("p < {:g}", alpha);
}

// A clause found in one or more cells: a significant ordered pair or a tied group.
struct Finding {
  std::vector<std::string> key;    // identifies the finding across cells
  std::string text;                // a tied group's words, without the cells; empty for pairs
  std::vector<std::string> cells;  // labels of the cells where it holds
  double worst_p = 0.0;            // largest Holm-adjusted p (pairs)
};

Finding& find_or_add(std::vector<Finding>& findings, const std::vector<std::string>& key, const std::string& text) {
  for (Finding& f : findings)
    if (f.key == key) return f;
  findings.push_back({key, text, {}, 0.0});
  return findings.back();
}

void add_significant_pairs(const CellStatistics& cell, std::vector<Finding>& pairs) {
  for (const PairStatistics& p : cell.pairs) {
    if (!p.different) continue;
    // Different implies 0 is outside the interval: its side says who leads
    // (the lower one when lower is better).
    const bool a_leads = cell.lower_is_better ? p.ci_high < 0.0 : p.ci_low > 0.0;
    const std::string& winner = a_leads ? p.a : p.b;
    const std::string& loser = a_leads ? p.b : p.a;
    Finding& f = find_or_add(pairs, {winner, loser}, "");
    f.cells.push_back(cell_label(cell));
    f.worst_p = std::max(f.worst_p, p.p_holm);
  }
}

void add_tied_groups(const CellStatistics& cell, std::vector<Finding>& groups) {
  int64_t tiers = 0;
  for (const VariantStatistics& v : cell.variants) tiers = std::max(tiers, v.tier);
  for (int64_t tier = 1; tier <= tiers; ++tier) {
    std::vector<std::string> members;
    for (const VariantStatistics& v : cell.variants)
      if (v.tier == tier) members.push_back(v.name);
    if (members.size() < 2) continue;
    std::vector<std::string> key = members;
    std::sort(key.begin(), key.end());
    find_or_add(groups, key, join(members, ", ", ", ") + " tied").cells.push_back(cell_label(cell));
  }
}

std::string at_cells(const Finding& f) { return " at " + join(f.cells, ", ", " and ") + " tokens"; }

// "a > b ... ; a > c ..." with the same cells and band read as "a > b, c ...";
// `leads` is " < " where lower is better.
std::vector<std::string> pair_clauses(const std::vector<Finding>& pairs, double alpha, const std::string& leads) {
  struct Clause {
    std::string leader, where;
    std::vector<std::string> losers;
  };
  std::vector<Clause> merged;
  for (const Finding& f : pairs) {
    const std::string where = at_cells(f) + " (" + p_band(f.worst_p, alpha) + ")";
    auto same = [&](const Clause& c) { return c.leader == f.key[0] && c.where == where; };
    auto it = std::find_if(merged.begin(), merged.end(), same);
    if (it == merged.end()) it = merged.insert(merged.end(), Clause{f.key[0], where, {}});
    it->losers.push_back(f.key[1]);
  }
  std::vector<std::string> clauses;
  for (const Clause& c : merged) clauses.push_back(c.leader + leads + join(c.losers, ", ", ", ") + c.where);
  return clauses;
}

}  // namespace

std::string split_verdict(const std::vector<CellStatistics>& cells, double alpha) {
  const bool any_pair =
      std::any_of(cells.begin(), cells.end(), [](const CellStatistics& c) { return !c.pairs.empty(); });
  if (!any_pair) return "nothing to compare: fewer than two variants with finished runs";
  std::vector<Finding> pairs, groups;
  for (const CellStatistics& c : cells) {
    add_significant_pairs(c, pairs);
    add_tied_groups(c, groups);
  }
  if (pairs.empty())
    return fmt::format("no difference the data can resolve: all variants tied (Holm-corrected p >= {:g})", alpha);
  std::vector<std::string> clauses = pair_clauses(pairs, alpha, cells.front().lower_is_better ? " < " : " > ");
  for (const Finding& f : groups) clauses.push_back(f.text + (f.cells.size() == cells.size() ? "" : at_cells(f)));
  return join(clauses, "; ", "; ");
}

}  // namespace rotor

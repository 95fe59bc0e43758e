#include "trainers/study/study_verdict.h"

#include <algorithm>

#include <fmt/format.h>

#include "trainers/run/attention_record.h"

namespace rotor {
namespace {

std::string cell_label(const CellStatistics& c) {
  return c.scaling == unscaled() ? std::to_string(c.length) : fmt::format("{} ({})", c.length, c.scaling);
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

// Different implies 0 is outside the interval: its side says who leads (the
// lower one when lower is better). Empty when the pair is not resolved.
std::string leader(const CellStatistics& cell, const PairStatistics& p) {
  if (!p.different) return "";
  return (cell.lower_is_better ? p.ci_high < 0.0 : p.ci_low > 0.0) ? p.a : p.b;
}

// A variant resolved above (or below) every other one with runs, among at
// least three: one clause instead of one per pair. Returns the variants so
// described, whose pairs are then left out of the pair clauses.
std::vector<std::string> add_extremes(const CellStatistics& cell, std::vector<Finding>& extremes) {
  std::vector<std::string> present, described;
  for (const VariantStatistics& v : cell.variants)
    if (v.n_seeds > 0) present.push_back(v.name);
  if (present.size() < 3) return described;
  const std::string better = cell.lower_is_better ? " lower loss than" : " above";
  const std::string worse = cell.lower_is_better ? " higher loss than" : " below";
  for (const std::string& name : present)
    for (const bool leads : {true, false}) {
      double worst_p = 0.0;
      size_t resolved = 0;
      for (const PairStatistics& p : cell.pairs) {
        if (p.a != name && p.b != name) continue;
        const std::string lead = leader(cell, p);
        if (lead.empty() || (lead == name) != leads) continue;
        ++resolved;
        worst_p = std::max(worst_p, p.p_holm);
      }
      if (resolved + 1 < present.size()) continue;
      Finding& f = find_or_add(extremes, {name, leads ? "+" : "-"}, name + (leads ? better : worse));
      f.cells.push_back(cell_label(cell));
      f.worst_p = std::max(f.worst_p, worst_p);
      described.push_back(name);
    }
  return described;
}

void add_significant_pairs(const CellStatistics& cell, const std::vector<std::string>& described,
                           std::vector<Finding>& pairs) {
  auto said = [&](const std::string& name) { return std::count(described.begin(), described.end(), name) > 0; };
  for (const PairStatistics& p : cell.pairs) {
    const std::string winner = leader(cell, p);
    if (winner.empty() || said(p.a) || said(p.b)) continue;
    const std::string& loser = winner == p.a ? p.b : p.a;
    Finding& f = find_or_add(pairs, {winner, loser}, "");
    f.cells.push_back(cell_label(cell));
    f.worst_p = std::max(f.worst_p, p.p_holm);
  }
}

bool resolved_within(const CellStatistics& cell, const std::vector<const VariantStatistics*>& members) {
  for (size_t i = 0; i < members.size(); ++i)
    for (size_t j = i + 1; j < members.size(); ++j) {
      const PairStatistics* p = find_pair(cell, members[i]->name, members[j]->name);
      if (p != nullptr && p->different) return true;
    }
  return false;
}

// A tier is its best variant and every one not resolved from it. Ties are not
// transitive: where two members are resolved from each other (a pair clause
// says so), the tier is said as what it is, not as tied.
void add_tier_groups(const CellStatistics& cell, std::vector<Finding>& groups) {
  int64_t tiers = 0;
  for (const VariantStatistics& v : cell.variants) tiers = std::max(tiers, v.tier);
  for (int64_t tier = 1; tier <= tiers; ++tier) {
    std::vector<const VariantStatistics*> members;
    for (const VariantStatistics& v : cell.variants)
      if (v.tier == tier) members.push_back(&v);
    if (members.size() < 2) continue;
    std::vector<std::string> names, key;
    for (const VariantStatistics* v : members) names.push_back(v->name);
    key = names;
    std::sort(key.begin(), key.end());
    if (!resolved_within(cell, members)) {
      find_or_add(groups, key, join(names, ", ", ", ") + " tied").cells.push_back(cell_label(cell));
      continue;
    }
    const VariantStatistics* best = *std::min_element(
        members.begin(), members.end(),
        [&](const VariantStatistics* x, const VariantStatistics* y) { return ranks_before(cell, *x, *y); });
    names.erase(std::find(names.begin(), names.end(), best->name));
    key.push_back("not resolved from " + best->name);
    find_or_add(groups, key, join(names, ", ", ", ") + " not resolved from " + best->name)
        .cells.push_back(cell_label(cell));
  }
}

std::string at_cells(const Finding& f) { return " at " + join(f.cells, ", ", " and ") + " tokens"; }

std::string finding_cells(const Finding& f, double alpha) {
  return at_cells(f) + " (" + p_band(f.worst_p, alpha) + ")";
}

// "a > b ... ; a > c ..." with the same cells and band read as "a > b, c ...",
// then "a > c, d ...; b > c, d ..." as "a, b > c, d ..."; `leads` is " < "
// where lower is better.
std::vector<std::string> pair_clauses(const std::vector<Finding>& pairs, double alpha, const std::string& leads) {
  struct Clause {
    std::vector<std::string> leaders, losers;
    std::string where;
  };
  std::vector<Clause> by_leader, merged;
  for (const Finding& f : pairs) {
    const std::string at = finding_cells(f, alpha);
    auto same = [&](const Clause& c) { return c.leaders.front() == f.key[0] && c.where == at; };
    auto it = std::find_if(by_leader.begin(), by_leader.end(), same);
    if (it == by_leader.end()) it = by_leader.insert(by_leader.end(), Clause{{f.key[0]}, {}, at});
    it->losers.push_back(f.key[1]);
  }
  for (const Clause& c : by_leader) {
    auto same = [&](const Clause& m) { return m.losers == c.losers && m.where == c.where; };
    auto it = std::find_if(merged.begin(), merged.end(), same);
    if (it == merged.end())
      merged.push_back(c);
    else
      it->leaders.push_back(c.leaders.front());
  }
  std::vector<std::string> clauses;
  for (const Clause& c : merged)
    clauses.push_back(join(c.leaders, ", ", ", ") + leads + join(c.losers, ", ", ", ") + c.where);
  return clauses;
}

}  // namespace

std::string split_verdict(const std::vector<CellStatistics>& cells, double alpha) {
  const bool any_pair =
      std::any_of(cells.begin(), cells.end(), [](const CellStatistics& c) { return !c.pairs.empty(); });
  if (!any_pair) return "nothing to compare: fewer than two variants with finished runs";
  std::vector<Finding> extremes, pairs, groups;
  for (const CellStatistics& c : cells) {
    add_significant_pairs(c, add_extremes(c, extremes), pairs);
    add_tier_groups(c, groups);
  }
  if (extremes.empty() && pairs.empty())
    return fmt::format("no difference the data can resolve: all variants tied (Holm-corrected p >= {:g})", alpha);
  std::vector<std::string> clauses;
  for (const Finding& f : extremes) clauses.push_back(f.text + " every other variant" + finding_cells(f, alpha));
  for (const std::string& c : pair_clauses(pairs, alpha, cells.front().lower_is_better ? " < " : " > "))
    clauses.push_back(c);
  for (const Finding& f : groups) clauses.push_back(f.text + (f.cells.size() == cells.size() ? "" : at_cells(f)));
  return join(clauses, "; ", "; ");
}

namespace {

// Variants grouped by a description of theirs, groups in order of first appearance.
using Groups = std::vector<std::pair<std::string, std::vector<std::string>>>;
void add_to_group(Groups& groups, const std::string& description, const std::string& variant) {
  auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == description; });
  if (it == groups.end()) it = groups.insert(groups.end(), {description, {}});
  it->second.push_back(variant);
}

}  // namespace

std::vector<std::string> usage_verdicts(const std::vector<PositionUsage>& usage, const std::string& reference) {
  Groups identical, uniform;
  std::vector<std::string> unresolved;
  for (const PositionUsage& u : usage) {
    const auto same = std::count(u.differing_per_seed.begin(), u.differing_per_seed.end(), 0);
    if (same > 0) add_to_group(identical, fmt::format("{} of {} seeds", same, u.differing_per_seed.size()), u.variant);
    if (u.indistinguishable_from_none) unresolved.push_back(u.variant);
    if (u.near_uniform_runs > 0)
      add_to_group(uniform, fmt::format("{} of {} runs of", u.near_uniform_runs, u.measured_runs), u.variant);
  }
  std::vector<std::string> lines;
  for (const auto& [seeds, variants] : identical)
    lines.push_back(
        fmt::format("{}: identical test predictions to `{}` on {} (the first statistics cell): there the "
                    "encoding changed no prediction at all",
                    join(variants, ", ", ", "), reference, seeds));
  if (!unresolved.empty())
    lines.push_back(
        fmt::format("cannot be told apart from `{}` (no position) at any evaluated length: {}: at this "
                    "budget their encodings make no resolved difference",
                    reference, join(unresolved, ", ", ", ")));
  std::vector<std::string> runs;
  for (const auto& [counts, variants] : uniform) runs.push_back(counts + " " + join(variants, ", ", ", "));
  if (!runs.empty())
    lines.push_back(
        fmt::format("attention stayed close to uniform (every layer's entropy >= {} of uniform) in {}: "
                    "such a model can use positions only weakly; train longer or check the learning rate",
                    kUniformEntropy, join(runs, "; ", "; ")));
  return lines;
}

}  // namespace rotor

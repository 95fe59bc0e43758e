#include "trainers/study/study_evidence.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "models/order_blindness.h"
#include "models/position_encoding.h"
#include "trainers/config/config_loader.h"
#include "trainers/config/objective_table.h"
#include "trainers/study/study_verdict.h"
#include "trainers/study/unit_evidence.h"

namespace rotor {
namespace {

// The cell of `r` at `point` when it holds its units.
const SweepCell* find_cell(const RunResult& r, const SweepCell& point, EvidenceUnit unit) {
  for (const SweepCell& c : r.sweep)
    if (c.same_point(point) && c.available && has_units(c, unit)) return &c;
  return nullptr;
}

// Calls record(run, cell) for each run of `variant` with a cell at `point`, in run order.
template <class Record>
void for_each_cell(const std::vector<RunResult>& runs, const std::string& variant, const SweepCell& point,
                   EvidenceUnit unit, Record&& record) {
  for (const RunResult& r : runs)
    if (const SweepCell* c = r.run.variant == variant ? find_cell(r, point, unit) : nullptr) record(r, *c);
}

// The points (scaling none) some finished run has units for, in sweep order.
std::vector<SweepCell> statistics_points(const std::vector<RunResult>& runs, EvidenceUnit unit) {
  std::vector<SweepCell> points;
  for (const RunResult& r : runs)
    for (const SweepCell& c : r.sweep)
      if (c.scaling == unscaled() && find_cell(r, c, unit) != nullptr &&
          std::none_of(points.begin(), points.end(), [&](const SweepCell& p) { return p.same_point(c); }))
        points.push_back(c);
  return points;
}

// The scalings whose cells at a point are variants of their own: each one the
// study evaluated where the row compares scalings, else the unscaled cells only.
std::vector<std::string> compared_scalings(const ObjectiveSpec& objective) {
  return objective.scalings_compared ? option_names<RopeScaling>() : std::vector<std::string>{unscaled()};
}

// Every variant's units at `point` (and each compared RoPE scaling as a variant
// of its own, "rope+ntk"): numerators per seed, and the denominators, the same
// for every run, as weights; units that all weigh 1 leave the weights empty.
CellOutcomes cell_outcomes(const SweepCell& point, const std::vector<StudyVariant>& variants,
                           const std::vector<RunResult>& runs, const ObjectiveSpec& objective) {
  CellOutcomes cell{point.split, point.length, point.scaling, {}, {}};
  std::optional<UnitScores> first;
  for (const StudyVariant& v : variants)
    for (const std::string& scaling : compared_scalings(objective)) {
      SweepCell at = point;
      at.scaling = scaling;
      VariantOutcomes out{scaling == unscaled() ? v.name : v.name + "+" + scaling, {}};
      for_each_cell(runs, v.name, at, objective.evidence, [&](const RunResult& r, const SweepCell& c) {
        UnitScores units = unit_scores(c, objective.evidence);
        if (!first) first = units;
        if (units.identity != first->identity)
          throw ConfigError(r.dir + "/length_sweep.json: " + units_differ(objective.evidence, point) +
                            ": the runs of a study must share data.data_seed and sources");
        out.scores_by_seed[static_cast<int64_t>(r.run.seed)] = std::move(units.numerators);
      });
      if (scaling == unscaled() || !out.scores_by_seed.empty()) cell.variants.push_back(std::move(out));
    }
  if (first && std::any_of(first->denominators.begin(), first->denominators.end(), [](double d) { return d != 1.0; }))
    cell.weights = first->denominators;
  cell.lower_is_better = evidence_declaration(objective).lower_is_better;
  return cell;
}

// The variant without positions (an encoding the table declares position_free) that the others are held against.
std::string reference_variant(const std::vector<StudyVariant>& variants) {
  for (const StudyVariant& v : variants)
    if (v.config.model.position_free() && !v.config.data.shuffle_tokens &&
        v.config.model.attention == AttentionKind::softmax)
      return v.name;
  return "";
}

// (variant, its twin that differs only by data.shuffle_tokens: true), for the order control.
std::vector<std::pair<std::string, std::string>> shuffled_twins(const std::vector<StudyVariant>& variants) {
  std::vector<std::pair<std::string, std::string>> twins;
  for (const StudyVariant& v : variants)
    for (const StudyVariant& w : variants)
      if (!v.config.data.shuffle_tokens && w.config.data.shuffle_tokens &&
          differing_keys(v.config, w.config) == std::vector<std::string>{"data.shuffle_tokens"})
        twins.emplace_back(v.name, w.name);
  return twins;
}

std::vector<OrderDependence> order_controls(const std::vector<StudyVariant>& variants,
                                            const std::vector<CellStatistics>& cells) {
  std::vector<OrderDependence> out;
  for (const auto& [variant, shuffled] : shuffled_twins(variants))
    for (const CellStatistics& cell : cells) {
      const PairStatistics* p = find_pair(cell, variant, shuffled);
      if (p == nullptr) continue;
      PairStatistics gap = *p;
      if (gap.a != variant) {  // orient as variant minus shuffled
        std::swap(gap.a, gap.b);
        gap.difference = -gap.difference;
        gap.ci_low = -p->ci_high;
        gap.ci_high = -p->ci_low;
      }
      out.push_back({variant, shuffled, cell.split, cell.length, gap});
    }
  return out;
}

// The options of one cell: with planned comparisons (spec comparisons.against)
// only each variant against that one, and each against its shuffled twin, are
// tested, so Holm corrects over those alone.
StatisticsOptions cell_options(const StudyEvidence& e, const CellOutcomes& cell,
                               const std::vector<StudyVariant>& variants) {
  StatisticsOptions o = e.options;
  if (e.against.empty()) return o;
  for (const VariantOutcomes& v : cell.variants)
    if (v.name != e.against) o.planned.emplace_back(e.against, v.name);
  for (const auto& twins : shuffled_twins(variants)) o.planned.push_back(twins);
  return o;
}

std::string order_verdict(const std::vector<OrderDependence>& order) {
  if (order.empty()) return "";
  std::string found;
  for (const OrderDependence& o : order)
    if (o.gap.different)
      found += fmt::format("{}{} {:+.1f} points at {} tokens ({})", found.empty() ? "" : "; ", o.variant,
                           100 * o.gap.difference, o.length, o.split);
  if (found.empty())
    return "word order makes no difference the data can resolve (every variant tied with its shuffled twin, "
           "Holm-corrected p >= 0.05): this task cannot rank position encodings";
  return "word order matters (accuracy with order minus shuffled, Holm-corrected p < 0.05): " + found;
}

PositionUsage usage_of(const StudyVariant& v, const std::string& reference, const std::vector<RunResult>& runs,
                       const std::vector<CellStatistics>& cells, const std::vector<SweepCell>& points) {
  PositionUsage u;
  u.variant = v.name;
  int64_t seeds = 0, differing = 0;
  for (const RunResult& r : runs) {
    if (r.run.variant != v.name || !r.finished) continue;
    if (r.attention.available) {
      ++u.measured_runs;
      u.near_uniform_runs += r.attention.near_uniform();
      u.layer_entropy.resize(r.attention.layer_entropy.size(), 0.0);
      for (size_t l = 0; l < u.layer_entropy.size(); ++l) u.layer_entropy[l] += r.attention.layer_entropy[l];
    }
    if (reference.empty() || points.empty() || v.name == reference) continue;
    const SweepCell* mine = find_cell(r, points.front(), EvidenceUnit::document);
    for (const RunResult& n : runs) {
      const SweepCell* theirs = n.run.variant == reference && n.run.seed == r.run.seed && mine != nullptr
                                    ? find_cell(n, points.front(), EvidenceUnit::document)
                                    : nullptr;
      if (theirs == nullptr) continue;
      ++seeds;
      u.documents = static_cast<int64_t>(mine->predictions.size());
      int64_t here = 0;
      for (size_t d = 0; d < mine->predictions.size(); ++d) here += mine->predictions[d] != theirs->predictions[d];
      u.differing_per_seed.push_back(here);
      differing += here;
    }
  }
  for (double& e : u.layer_entropy) e /= static_cast<double>(std::max<int64_t>(1, u.measured_runs));
  if (seeds > 0) u.differs_from_none = static_cast<double>(differing) / static_cast<double>(seeds);
  bool seen = false, always = true;
  for (const CellStatistics& c : cells)
    for (const VariantStatistics& s : c.variants)
      if (s.name == v.name && s.n_seeds > 0) {
        seen = true;
        always = always && s.indistinguishable_from_reference;
      }
  u.indistinguishable_from_none = !reference.empty() && v.name != reference && seen && always;
  if (v.name != reference) u.order_blind = order_blindness(v.config.model);
  return u;
}

}  // namespace

StudyEvidence gather_evidence(const std::vector<StudyVariant>& variants, const std::vector<RunResult>& runs,
                              const StatisticsOptions& options, const std::string& against) {
  StudyEvidence e;
  e.options = options;
  e.against = against;
  const ObjectiveSpec& objective = objective_spec(variants.front().config.train.objective);
  e.unit = objective.evidence;
  e.reference = e.classes_predicted() ? reference_variant(variants) : "";
  e.options.reference = e.reference;
  const std::vector<SweepCell> points = statistics_points(runs, e.unit);
  for (const SweepCell& point : points) {
    const CellOutcomes cell = cell_outcomes(point, variants, runs, objective);
    e.cells.push_back(cell_statistics(cell, cell_options(e, cell, variants)));
  }
  std::vector<std::string> splits;
  for (const CellStatistics& c : e.cells)
    if (std::find(splits.begin(), splits.end(), c.split) == splits.end()) splits.push_back(c.split);
  for (const std::string& split : splits) {
    std::vector<CellStatistics> own;
    for (const CellStatistics& c : e.cells)
      if (c.split == split) own.push_back(c);
    std::stable_sort(own.begin(), own.end(), [](const auto& a, const auto& b) { return a.length < b.length; });
    e.verdicts.push_back(split + ": " + split_verdict(own, e.options.alpha));
  }
  if (!e.classes_predicted()) return e;  // the order control and the prediction comparison need predicted classes
  e.order = order_controls(variants, e.cells);
  e.order_verdict = order_verdict(e.order);
  for (const StudyVariant& v : variants) e.usage.push_back(usage_of(v, e.reference, runs, e.cells, points));
  e.usage_verdicts = usage_verdicts(e.usage, e.reference);
  return e;
}

}  // namespace rotor

#include "trainers/study/study_statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "datasets/data_error.h"
#include "engine/random.h"
#include "trainers/config/config.h"
#include "trainers/study/aggregation.h"

namespace rotor {
namespace {

// Every finished run of the cell, scores document-major so that one
// replicate's per-run sums are a single pass over the drawn documents.
struct CellRuns {
  int64_t documents = 0, runs = 0;
  std::vector<double> scores;                 // [document * runs + run]
  std::vector<std::vector<int64_t>> seeds;    // [variant] -> its seeds, ascending
  std::vector<std::vector<int64_t>> run_ids;  // [variant] -> run index of each of its seeds
  std::vector<double> sums;                   // [run] -> sum of its scores over all documents
  std::vector<double> weights;                // [document] (1 each when the cell gives none)
  double weight_total = 0.0;                  // their sum
};

std::string cell_name(const CellOutcomes& cell) {
  return fmt::format("cell {} at {} tokens (scaling {})", cell.split, cell.length, cell.scaling);
}

void check_run(const CellOutcomes& cell, const VariantOutcomes& v, int64_t seed, const std::vector<double>& scores,
               int64_t documents) {
  const std::string where = fmt::format("{}, variant {}, seed {}", cell_name(cell), v.name, seed);
  if (scores.empty()) throw DataError(where + ": no document scores");
  if (static_cast<int64_t>(scores.size()) != documents)
    throw DataError(fmt::format("{}: {} document scores, expected {} like the other runs of the cell", where,
                                scores.size(), documents));
  const bool loss = cell.lower_is_better;
  // A count of right tokens out of a sample's weight (its target tokens) is at most that weight.
  const auto most = [&](size_t d) { return d < cell.weights.size() ? cell.weights[d] : 1.0; };
  for (size_t d = 0; d < scores.size(); ++d)
    if (!(scores[d] >= 0.0 && (loss ? std::isfinite(scores[d]) : scores[d] <= most(d))))
      throw DataError(fmt::format("{}: document {} has score {}, expected {}", where, d, scores[d],
                                  loss ? "a finite sum of nats >= 0" : fmt::format("a number in [0, {}]", most(d))));
}

// One weight per document, none negative, some positive.
void check_weights(const CellOutcomes& cell, int64_t documents) {
  if (cell.weights.empty()) return;
  double total = 0.0;
  for (const double w : cell.weights) {
    if (!(w >= 0.0 && std::isfinite(w)))
      throw DataError(cell_name(cell) + ": a document weight is " + std::to_string(w));
    total += w;
  }
  if (static_cast<int64_t>(cell.weights.size()) != documents || !(total > 0.0))
    throw DataError(fmt::format("{}: {} document weights summing to {}, expected {} with a positive sum",
                                cell_name(cell), cell.weights.size(), total, documents));
}

CellRuns gather_runs(const CellOutcomes& cell) {
  CellRuns r;
  std::set<std::string> names;
  std::vector<const std::vector<double>*> columns;
  for (const VariantOutcomes& v : cell.variants) {
    if (!names.insert(v.name).second) throw DataError(cell_name(cell) + ": variant " + v.name + " appears twice");
    r.seeds.emplace_back();
    r.run_ids.emplace_back();
    for (const auto& [seed, scores] : v.scores_by_seed) {
      if (columns.empty()) r.documents = static_cast<int64_t>(scores.size());
      check_run(cell, v, seed, scores, r.documents);
      r.seeds.back().push_back(seed);
      r.run_ids.back().push_back(static_cast<int64_t>(columns.size()));
      columns.push_back(&scores);
    }
  }
  r.runs = static_cast<int64_t>(columns.size());
  if (r.runs > 0) check_weights(cell, r.documents);
  r.weights = cell.weights.empty() ? std::vector<double>(static_cast<size_t>(r.documents), 1.0) : cell.weights;
  r.weight_total = std::accumulate(r.weights.begin(), r.weights.end(), 0.0);
  r.scores.resize(static_cast<size_t>(r.documents * r.runs));
  r.sums.assign(static_cast<size_t>(r.runs), 0.0);
  for (int64_t d = 0; d < r.documents; ++d)
    for (int64_t k = 0; k < r.runs; ++k) {
      r.scores[d * r.runs + k] = (*columns[k])[d];
      r.sums[k] += (*columns[k])[d];
    }
  return r;
}

// The run indices of the seeds that variants a and b both have, side by side.
struct SeedPairs {
  std::vector<int64_t> a, b;
};
SeedPairs shared_seeds(const CellRuns& r, size_t a, size_t b) {
  SeedPairs s;
  for (size_t i = 0; i < r.seeds[a].size(); ++i) {
    const auto it = std::find(r.seeds[b].begin(), r.seeds[b].end(), r.seeds[a][i]);
    if (it == r.seeds[b].end()) continue;
    s.a.push_back(r.run_ids[a][i]);
    s.b.push_back(r.run_ids[b][it - r.seeds[b].begin()]);
  }
  return s;
}

struct Comparisons {
  std::vector<size_t> pair_a, pair_b;  // variant indices of each kept pair
  std::vector<SeedPairs> pair_runs;
};
Comparisons comparisons(const CellRuns& r, const CellOutcomes& cell, const StatisticsOptions& options) {
  Comparisons c;
  for (size_t a = 0; a < r.seeds.size(); ++a)
    for (size_t b = a + 1; b < r.seeds.size(); ++b) {
      SeedPairs s = shared_seeds(r, a, b);
      if (s.a.empty() || !options.tests(cell.variants[a].name, cell.variants[b].name)) continue;
      c.pair_a.push_back(a);
      c.pair_b.push_back(b);
      c.pair_runs.push_back(std::move(s));
    }
  return c;
}

// Replicate statistics, [variant or pair][replicate]. Sums are kept as score
// totals (exact integers for 0/1 scores) and divided once at the end, so
// equal totals give a difference of exactly 0.
struct Replicates {
  std::vector<std::vector<double>> variant, pair;
};

// Score totals of every run over the documents that `key` draws (N with
// replacement); returns the drawn documents' total weight.
double resampled_sums(const CellRuns& r, const RandomKey& key, std::vector<int64_t>& counts,
                      std::vector<double>& sums) {
  std::fill(counts.begin(), counts.end(), 0);
  for (int64_t i = 0; i < r.documents; ++i) ++counts[key.below(static_cast<uint64_t>(i), r.documents)];
  std::fill(sums.begin(), sums.end(), 0.0);
  double weight = 0.0;
  for (int64_t d = 0; d < r.documents; ++d) {
    if (counts[d] == 0) continue;
    const double c = static_cast<double>(counts[d]);
    weight += c * r.weights[d];
    const double* row = &r.scores[d * r.runs];
    for (int64_t k = 0; k < r.runs; ++k) sums[k] += c * row[k];
  }
  return weight;
}

// Mean over `n` seeds drawn with replacement of sums[first[j]] - sums[second[j]]
// (second empty: no subtraction), per unit of the drawn documents' weight.
double seed_resampled_mean(const RandomKey& key, const std::vector<int64_t>& first, const std::vector<int64_t>& second,
                           const std::vector<double>& sums, double weight) {
  const uint64_t n = first.size();
  double total = 0.0, minus = 0.0;
  for (uint64_t j = 0; j < n; ++j) {
    const uint64_t pick = key.below(j, n);
    total += sums[first[pick]];
    if (!second.empty()) minus += sums[second[pick]];
  }
  return (total - minus) / (static_cast<double>(n) * weight);
}

Replicates bootstrap(const CellRuns& r, const Comparisons& c, const StatisticsOptions& options) {
  const size_t B = static_cast<size_t>(options.replicates);
  Replicates out;
  out.variant.assign(r.seeds.size(), std::vector<double>(B));
  out.pair.assign(c.pair_runs.size(), std::vector<double>(B));
  std::vector<int64_t> counts(static_cast<size_t>(r.documents));
  std::vector<double> sums(static_cast<size_t>(r.runs));
  const std::vector<int64_t> unpaired;
  for (size_t b = 0; b < B; ++b) {
    const double weight = resampled_sums(r, RandomKey{options.seed, stream_id("bootstrap/documents"), b}, counts, sums);
    const RandomKey seeds{options.seed, stream_id("bootstrap/seeds"), b};
    for (size_t v = 0; v < r.seeds.size(); ++v)
      if (!r.run_ids[v].empty()) out.variant[v][b] = seed_resampled_mean(seeds, r.run_ids[v], unpaired, sums, weight);
    for (size_t p = 0; p < c.pair_runs.size(); ++p)
      out.pair[p][b] = seed_resampled_mean(seeds, c.pair_runs[p].a, c.pair_runs[p].b, sums, weight);
  }
  return out;
}

// Replicates in each tail of the (1 - alpha) interval; the epsilon keeps
// alpha * B / 2 = 50 from rounding up to 51.
int64_t tail_count(const StatisticsOptions& o) {
  return static_cast<int64_t>(std::ceil(o.alpha * static_cast<double>(o.replicates) / 2.0 - 1e-9));
}

std::pair<double, double> percentile_interval(std::vector<double> replicates, int64_t tail) {
  std::sort(replicates.begin(), replicates.end());
  const int64_t B = static_cast<int64_t>(replicates.size());
  return {replicates[tail - 1], replicates[B - tail]};
}

double bootstrap_p(const std::vector<double>& replicates) {
  const double B = static_cast<double>(replicates.size());
  const double below =
      static_cast<double>(std::count_if(replicates.begin(), replicates.end(), [](double d) { return d <= 0.0; }));
  const double above =
      static_cast<double>(std::count_if(replicates.begin(), replicates.end(), [](double d) { return d >= 0.0; }));
  return std::min(1.0, std::max(2.0 * std::min(below, above) / B, 1.0 / (B + 1.0)));
}

void check_options(const StatisticsOptions& o, int64_t variants) {
  if (!(o.alpha > 0.0 && o.alpha < 1.0))
    throw ConfigError(fmt::format("statistics alpha {} is not in (0, 1)", o.alpha));
  const int64_t fewest = minimum_replicates(variants, o.alpha);
  if (o.replicates < fewest)
    throw ConfigError(fmt::format("statistics replicates {} is too few: {} variants at alpha {} need at least {}",
                                  o.replicates, variants, o.alpha, fewest));
}

VariantStatistics variant_statistics(const VariantOutcomes& v, const CellRuns& r, size_t index,
                                     const std::vector<double>& replicates, int64_t tail) {
  VariantStatistics s;
  s.name = v.name;
  s.n_seeds = static_cast<int64_t>(r.run_ids[index].size());
  if (s.n_seeds == 0) return s;
  s.n_documents = r.documents;
  std::vector<double> per_seed;
  for (int64_t run : r.run_ids[index]) per_seed.push_back(r.sums[run] / r.weight_total);
  const SeedStats seeds = seed_stats(per_seed);
  s.mean = seeds.mean;
  s.seed_std = seeds.std;
  std::tie(s.ci_low, s.ci_high) = percentile_interval(replicates, tail);
  return s;
}

PairStatistics pair_statistics(const CellOutcomes& cell, const CellRuns& r, const Comparisons& c, size_t p,
                               const std::vector<double>& replicates, int64_t tail) {
  PairStatistics s;
  s.a = cell.variants[c.pair_a[p]].name;
  s.b = cell.variants[c.pair_b[p]].name;
  const SeedPairs& runs = c.pair_runs[p];
  s.n_seeds = static_cast<int64_t>(runs.a.size());
  double total_a = 0.0, total_b = 0.0;
  for (int64_t j = 0; j < s.n_seeds; ++j) {
    total_a += r.sums[runs.a[j]];
    total_b += r.sums[runs.b[j]];
  }
  s.difference = (total_a - total_b) / (static_cast<double>(s.n_seeds) * r.weight_total);
  std::tie(s.ci_low, s.ci_high) = percentile_interval(replicates, tail);
  s.p = bootstrap_p(replicates);
  return s;
}

}  // namespace

int64_t minimum_replicates(int64_t variants, double alpha) {
  const double pairs = static_cast<double>(std::max<int64_t>(1, variants * (variants - 1) / 2));
  // The epsilons keep 2 / 0.05 = 40 and 66 / 0.05 = 1320 from rounding away from the integer.
  const double tails = std::ceil(2.0 / alpha - 1e-9), holm = std::floor(pairs / alpha + 1e-9);
  return static_cast<int64_t>(std::max(tails, holm));
}

std::vector<double> holm_adjust(const std::vector<double>& p) {
  std::vector<size_t> order(p.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p[x] < p[y]; });
  std::vector<double> adjusted(p.size());
  double running = 0.0;
  for (size_t rank = 0; rank < order.size(); ++rank) {
    const double scaled = static_cast<double>(p.size() - rank) * p[order[rank]];
    running = std::min(1.0, std::max(running, scaled));
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

bool ranks_before(const CellStatistics& cell, const VariantStatistics& x, const VariantStatistics& y) {
  const double sign = cell.lower_is_better ? -1.0 : 1.0;
  return x.mean != y.mean ? sign * x.mean > sign * y.mean : x.name < y.name;
}

const PairStatistics* find_pair(const CellStatistics& cell, const std::string& a, const std::string& b) {
  for (const PairStatistics& p : cell.pairs)
    if ((p.a == a && p.b == b) || (p.a == b && p.b == a)) return &p;
  return nullptr;
}

namespace {

bool indistinguishable(const CellStatistics& cell, const std::string& a, const std::string& b) {
  const PairStatistics* p = find_pair(cell, a, b);
  return a == b || p == nullptr || !p->different;
}

// Without a reference, or one with no run, nobody is marked.
void mark_reference(CellStatistics& cell, const std::string& reference) {
  if (reference.empty()) return;
  const auto ref = std::find_if(cell.variants.begin(), cell.variants.end(),
                                [&](const VariantStatistics& v) { return v.name == reference; });
  if (ref == cell.variants.end())
    throw ConfigError(fmt::format("statistics reference variant {} is not a variant of the study", reference));
  if (ref->n_seeds == 0) return;
  for (VariantStatistics& v : cell.variants)
    v.indistinguishable_from_reference = v.n_seeds > 0 && indistinguishable(cell, reference, v.name);
}

// Best first (ranks_before); the best remaining variant and every remaining
// variant not different from it form the next tier.
void assign_tiers(CellStatistics& cell) {
  std::vector<VariantStatistics*> remaining;
  for (VariantStatistics& v : cell.variants)
    if (v.n_seeds > 0) remaining.push_back(&v);
  std::sort(remaining.begin(), remaining.end(),
            [&](const VariantStatistics* x, const VariantStatistics* y) { return ranks_before(cell, *x, *y); });
  for (int64_t tier = 1; !remaining.empty(); ++tier) {
    const std::string best = remaining.front()->name;
    std::vector<VariantStatistics*> rest;
    for (VariantStatistics* v : remaining) {
      if (indistinguishable(cell, best, v->name))
        v->tier = tier;
      else
        rest.push_back(v);
    }
    remaining = rest;
  }
}

}  // namespace

CellStatistics cell_statistics(const CellOutcomes& cell, const StatisticsOptions& requested) {
  const int64_t variants = static_cast<int64_t>(cell.variants.size());
  StatisticsOptions options = requested;
  if (options.holm_resolution > 0.0)
    options.replicates = std::max(options.replicates, minimum_replicates(variants, options.holm_resolution));
  check_options(options, variants);
  const CellRuns runs = gather_runs(cell);
  const Comparisons comparisons_ = comparisons(runs, cell, options);
  const Replicates replicates = bootstrap(runs, comparisons_, options);
  const int64_t tail = tail_count(options);
  CellStatistics out{cell.split, cell.length, cell.scaling, cell.lower_is_better, {}, {}, options.replicates};
  for (size_t v = 0; v < cell.variants.size(); ++v)
    out.variants.push_back(variant_statistics(cell.variants[v], runs, v, replicates.variant[v], tail));
  std::vector<double> p;
  for (size_t i = 0; i < comparisons_.pair_runs.size(); ++i) {
    out.pairs.push_back(pair_statistics(cell, runs, comparisons_, i, replicates.pair[i], tail));
    p.push_back(out.pairs.back().p);
  }
  const std::vector<double> adjusted = holm_adjust(p);
  for (size_t i = 0; i < out.pairs.size(); ++i) {
    out.pairs[i].p_holm = adjusted[i];
    out.pairs[i].different = adjusted[i] < options.alpha;
  }
  assign_tiers(out);
  mark_reference(out, options.reference);
  return out;
}

nlohmann::json to_json(const VariantStatistics& v) {
  nlohmann::json j{{"name", v.name}, {"n_seeds", v.n_seeds}, {"n_documents", v.n_documents}};
  const bool has_runs = v.n_seeds > 0;
  for (const auto& [key, value] : {std::pair<const char*, double>{"mean", v.mean},
                                   {"seed_std", v.seed_std},
                                   {"ci_low", v.ci_low},
                                   {"ci_high", v.ci_high}})
    j[key] = has_runs ? nlohmann::json(value) : nlohmann::json(nullptr);
  j["tier"] = has_runs ? nlohmann::json(v.tier) : nlohmann::json(nullptr);
  j["indistinguishable_from_reference"] = v.indistinguishable_from_reference;
  return j;
}

nlohmann::json to_json(const PairStatistics& p) {
  return {{"a", p.a},
          {"b", p.b},
          {"n_seeds", p.n_seeds},
          {"difference", p.difference},
          {"ci_low", p.ci_low},
          {"ci_high", p.ci_high},
          {"p", p.p},
          {"p_holm", p.p_holm},
          {"different", p.different}};
}

nlohmann::json to_json(const CellStatistics& cell) {
  nlohmann::json j{{"split", cell.split},
                   {"length", cell.length},
                   {"scaling", cell.scaling},
                   {"variants", nlohmann::json::array()},
                   {"pairs", nlohmann::json::array()},
                   {"replicates", cell.replicates}};
  if (cell.lower_is_better) j["lower_is_better"] = true;
  for (const VariantStatistics& v : cell.variants) j["variants"].push_back(to_json(v));
  for (const PairStatistics& p : cell.pairs) j["pairs"].push_back(to_json(p));
  return j;
}

nlohmann::json statistics_json(const std::vector<CellStatistics>& cells, const StatisticsOptions& options) {
  nlohmann::json j{{"method",
                    {{"resampling", "two-level paired bootstrap over seeds and test documents"},
                     {"interval", "percentile"},
                     {"confidence", 1.0 - options.alpha},
                     {"replicates", options.replicates},
                     {"holm_resolution", options.holm_resolution},
                     {"seed", options.seed},
                     {"correction", "holm"},
                     {"alpha", options.alpha},
                     {"reference", options.reference}}},
                   {"cells", nlohmann::json::array()}};
  for (const CellStatistics& c : cells) j["cells"].push_back(to_json(c));
  return j;
}

}  // namespace rotor

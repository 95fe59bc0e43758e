// The study's evidence (study_evidence.h) in the report: report.json's
// verdicts, statistics, order_dependence and position_usage, and report.md's
// verdict in words, each cell's intervals and resolved pairs, the order
// control and whether variants use positions.
#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>

#include <fmt/format.h>

#include "trainers/study/report_statistics.h"

namespace rotor {
namespace {

// How the verdicts' tier clauses read (study_verdict.h).
constexpr const char* kTiedLegend =
    "`tied` lists variants whose differences are not resolved; `b, c not resolved from a` lists the rest of a tier "
    "(a, its best, and every variant not resolved from it) where two of them are resolved from each other: ties are "
    "not transitive";

nlohmann::json order_json(const StudyEvidence& e) {
  nlohmann::json j{{"verdict", e.order_verdict}, {"gaps", nlohmann::json::array()}};
  for (const OrderDependence& o : e.order)
    j["gaps"].push_back({{"variant", o.variant},
                         {"shuffled", o.shuffled},
                         {"split", o.split},
                         {"length", o.length},
                         {"gap", to_json(o.gap)}});
  return j;
}

nlohmann::json usage_json(const StudyEvidence& e) {
  nlohmann::json j{{"reference", e.reference},
                   {"near_uniform_entropy", kUniformEntropy},
                   {"verdicts", e.usage_verdicts},
                   {"variants", nlohmann::json::array()}};
  for (const PositionUsage& u : e.usage)
    j["variants"].push_back({{"variant", u.variant},
                             {"differs_from_none", u.differs_from_none},
                             {"differing_per_seed", u.differing_per_seed},
                             {"documents", u.documents},
                             {"indistinguishable_from_none", u.indistinguishable_from_none},
                             {"measured_runs", u.measured_runs},
                             {"near_uniform_runs", u.near_uniform_runs},
                             {"layer_entropy", u.layer_entropy},
                             {"order_blind", u.order_blind}});
  return j;
}

nlohmann::json evidence_json(const StudyReport& r) {
  const StudyEvidence& e = r.evidence;
  nlohmann::json statistics = statistics_json(e.cells, e.options);
  statistics["method"]["comparisons"] = e.against.empty() ? "all pairs" : "planned: each variant against " + e.against;
  return {{"verdicts", e.verdicts},
          {"statistics", statistics},
          {"order_dependence", order_json(e)},
          {"position_usage", usage_json(e)}};
}

std::string points(double v) { return fmt::format("{:.2f}", 100 * v); }
std::string signed_points(double v) { return fmt::format("{:+.2f}", 100 * v); }
std::string interval(double lo, double hi) { return "[" + points(lo) + ", " + points(hi) + "]"; }
std::string signed_interval(double lo, double hi) { return "[" + signed_points(lo) + ", " + signed_points(hi) + "]"; }
std::string p_text(double p) { return p < 1e-4 ? fmt::format("{:.1e}", p) : fmt::format("{:.4f}", p); }

// The pairs one Holm correction covers: every pair of a cell, or the planned
// comparisons of the spec's comparisons.against (a smaller family).
std::string holm_family(const StudyEvidence& e) {
  if (e.against.empty()) return "the pairs of that split and length";
  return "the planned comparisons of that split and length: each variant against `" + e.against +
         "` (spec `comparisons.against`)";
}

// "5000 replicates", or a range where cells with more rows drew more (StatisticsOptions::holm_resolution).
std::string replicates_text(const StudyEvidence& e) {
  int64_t fewest = e.options.replicates, most = e.options.replicates;
  for (const CellStatistics& c : e.cells) {
    fewest = std::min(fewest, c.replicates);
    most = std::max(most, c.replicates);
  }
  if (fewest == most) return fmt::format("{} replicates", most);
  return fmt::format(
      "{} to {} replicates, more in a cell with more rows, so that its smallest Holm-adjusted p can "
      "reach {}",
      fewest, most, e.options.holm_resolution);
}

// The seed level of the bootstrap can only redraw the seeds at hand: with
// fewer than 3 it barely samples the spread between seeds.
std::string few_seeds_note(const StudyEvidence& e) {
  int64_t fewest = 0;
  for (const CellStatistics& c : e.cells)
    for (const VariantStatistics& v : c.variants)
      if (v.n_seeds > 0 && (fewest == 0 || v.n_seeds < fewest)) fewest = v.n_seeds;
  if (fewest == 0 || fewest >= 3) return "";
  return fmt::format(
      "\n**Few seeds**: a variant here has {} finished seed{}. The seed level of the bootstrap can only redraw the "
      "seeds at hand, so these intervals and p-values barely reflect how much another seed would differ: run 3 or "
      "more seeds (`seeds:`) before reading a difference as a property of the encodings.\n",
      fewest, fewest == 1 ? "" : "s");
}

std::string verdict_section(const StudyEvidence& e) {
  std::ostringstream o;
  o << "## Verdict\n\n";
  if (e.cells.empty()) return o.str() + "No run has per-document predictions yet: nothing to compare.\n";
  for (const std::string& line : e.verdicts) o << "- " << line << "\n";
  if (!e.order_verdict.empty()) o << "- order control: " << e.order_verdict << "\n";
  for (const std::string& line : e.usage_verdicts) o << "- " << line << "\n";
  if (e.nats_per_token())
    return o.str() + fmt::format(
                         "\n`a < b` means a's loss per token (so its perplexity) is lower and the paired difference is "
                         "resolved (Holm-corrected p < {} over {}; `rope+ntk` is rope evaluated with NTK scaling); "
                         "{}. The order control and the position-usage checks need a classifier's predictions and "
                         "are not run for a language-model study.\n",
                         e.options.alpha, holm_family(e), kTiedLegend);
  o << fmt::format(
      "\n`a > b` means a's accuracy is higher and the paired difference is resolved (Holm-corrected p < {} over "
      "{}); {}.\n",
      e.options.alpha, holm_family(e), kTiedLegend);
  return o.str();
}

// A column of a cell's table: its header, its alignment row ("--:|") and its text for a variant with runs.
struct CellColumn {
  std::string header, alignment;
  std::function<std::string(const VariantStatistics&)> shown;
};

std::string seeds_text(const VariantStatistics& v) { return std::to_string(v.n_seeds); }
std::string tier_text(const VariantStatistics& v) { return std::to_string(v.tier); }

// A classifier's or a sequence task's cell: the score in points with its interval, and, with a no-position
// reference, whether each variant differs from it.
std::vector<CellColumn> points_columns(const std::string& reference) {
  std::vector<CellColumn> columns{
      {"Accuracy", "--:", [](const VariantStatistics& v) { return points(v.mean); }},
      {"95% interval", "--:", [](const VariantStatistics& v) { return interval(v.ci_low, v.ci_high); }},
      {"Seeds", "--:", seeds_text},
      {"Tier", "--:", tier_text}};
  if (!reference.empty())
    columns.push_back({"vs `" + reference + "`", "---", [reference](const VariantStatistics& v) -> std::string {
                         return v.name == reference ? "–" : v.indistinguishable_from_reference ? "tied" : "differs";
                       }});
  return columns;
}

// A language model's cell: perplexity with the interval of exp(loss), and the loss.
std::vector<CellColumn> perplexity_columns() {
  return {{"Perplexity", "--:", [](const VariantStatistics& v) { return fmt::format("{:.3f}", std::exp(v.mean)); }},
          {"95% interval", "--:",
           [](const VariantStatistics& v) {
             return fmt::format("[{:.3f}, {:.3f}]", std::exp(v.ci_low), std::exp(v.ci_high));
           }},
          {"Loss (nats/token)", "--:", [](const VariantStatistics& v) { return fmt::format("{:.4f}", v.mean); }},
          {"Seeds", "--:", seeds_text},
          {"Windows", "--:", [](const VariantStatistics& v) { return std::to_string(v.n_documents); }},
          {"Tier", "--:", tier_text}};
}

// A resolved pair in points, or for a language model in nats per token with its perplexity ratio.
std::string pair_line(const PairStatistics& p, bool nats) {
  if (nats)
    return fmt::format("- {} − {}: {:+.4f} nats/token [{:+.4f}, {:+.4f}] (perplexity × {:.3f}), p = {} (Holm {})\n",
                       p.a, p.b, p.difference, p.ci_low, p.ci_high, std::exp(p.difference), p_text(p.p),
                       p_text(p.p_holm));
  return "- " + p.a + " − " + p.b + ": " + signed_points(p.difference) + " points " +
         signed_interval(p.ci_low, p.ci_high) + ", p = " + p_text(p.p) + " (Holm " + p_text(p.p_holm) + ")\n";
}

// One cell: a row per variant with runs, its columns as the study's unit says, then its resolved pairs.
std::string cell_table(const CellStatistics& c, const StudyEvidence& e) {
  const bool nats = e.nats_per_token();
  const std::vector<CellColumn> columns = nats ? perplexity_columns() : points_columns(e.reference);
  std::ostringstream o;
  o << "\n**" << c.split << "**, " << c.length << " tokens:\n\n| Variant |";
  for (const CellColumn& column : columns) o << " " << column.header << " |";
  o << "\n|---|";
  for (const CellColumn& column : columns) o << column.alignment << "|";
  o << "\n";
  for (const VariantStatistics& v : c.variants) {
    if (v.n_seeds == 0) continue;
    o << "| " << v.name << " |";
    for (const CellColumn& column : columns) o << " " << column.shown(v) << " |";
    o << "\n";
  }
  std::string resolved;
  for (const PairStatistics& p : c.pairs)
    if (p.different) resolved += pair_line(p, nats);
  o << "\n"
    << (resolved.empty()
            ? "No pair is resolved here.\n"
            : fmt::format("Resolved pairs (paired over seeds and {}):\n\n", nats ? "windows" : "documents") + resolved);
  return o.str();
}

std::string order_section(const StudyEvidence& e) {
  if (e.order.empty()) return "";
  std::ostringstream o;
  o << "\n## Order control\n\nEach variant against its twin trained and evaluated with `data.shuffle_tokens: true` "
       "(every window's tokens in a random order): accuracy with order minus shuffled, in points. Verdict: "
    << e.order_verdict << ".\n\n| Variant | Split | Length | Gap | 95% interval | p (Holm) | Resolved |\n"
    << "|---|---|--:|--:|--:|--:|---|\n";
  for (const OrderDependence& d : e.order)
    o << "| " << d.variant << " | " << d.split << " | " << d.length << " | " << signed_points(d.gap.difference) << " | "
      << signed_interval(d.gap.ci_low, d.gap.ci_high) << " | " << p_text(d.gap.p_holm) << " | "
      << (d.gap.different ? "yes" : "no") << " |\n";
  return o.str();
}

std::string usage_section(const StudyEvidence& e) {
  if (!e.classes_predicted()) return "";
  std::ostringstream o;
  o << "\n## Does the model use positions?\n\nAttention entropy per layer relative to uniform attention (1 = "
       "uniform), on up to "
    << kAttentionWindows << " validation windows of each run's best checkpoint, mean over runs";
  if (!e.reference.empty())
    o << "; test predictions that differ from `" << e.reference << "` (same seed, first statistics cell), per seed";
  o << ".\n\n| Variant | Attention entropy by layer | Runs near uniform |"
    << (e.reference.empty() ? "" : " Predictions unlike `" + e.reference + "` |") << "\n|---|---|--:|"
    << (e.reference.empty() ? "" : "--:|") << "\n";
  for (const PositionUsage& u : e.usage) {
    std::string entropy;
    for (double v : u.layer_entropy) entropy += (entropy.empty() ? "" : ", ") + fmt::format("{:.3f}", v);
    o << "| " << u.variant << " | " << (u.measured_runs ? entropy : "n/a") << " | " << u.near_uniform_runs << " / "
      << u.measured_runs << " |";
    if (!e.reference.empty()) {
      std::string per_seed;
      for (int64_t n : u.differing_per_seed) per_seed += (per_seed.empty() ? "" : ", ") + std::to_string(n);
      o << " " << (per_seed.empty() ? "–" : per_seed + " of " + std::to_string(u.documents)) << " |";
    }
    o << "\n";
  }
  std::string blind;
  for (const PositionUsage& u : e.usage)
    if (!u.order_blind.empty()) blind += "- **" + u.variant + "**: " + u.order_blind + ".\n";
  if (!blind.empty()) o << "\nVariants that cannot see word order here, whatever their training:\n\n" << blind;
  o << "\nWhere each layer's attention goes, head by head, and which frequency pairs a rotary variant's logits use: "
       "[Attention against distance](#attention-against-distance) below.\n";
  return o.str();
}

}  // namespace

std::string evidence_markdown(const StudyReport& r) {
  const StudyEvidence& e = r.evidence;
  std::ostringstream o;
  o << verdict_section(e);
  if (!e.cells.empty() && e.nats_per_token()) {
    const int64_t budget = r.manifest.spec.evaluation.max_tokens;
    o << fmt::format(
        "\n## Statistics\n\nLoss in nats per token over every seed and every evaluation window (non-overlapping "
        "windows of the length, or as the spec's stride says{}), perplexity = e^loss; 95% intervals from a "
        "two-level bootstrap ({}, resampling seeds and windows, the loss a ratio of summed nats to summed "
        "tokens); pairs compared paired over the same seeds and windows, Holm-corrected over {}; tier 1 is the "
        "lowest loss and every variant not resolved from it, and so on.\n{}",
        budget > 0 ? fmt::format("; the split's first {} targets only, evaluation.max_tokens", budget) : "",
        replicates_text(e), holm_family(e), few_seeds_note(e));
    for (const CellStatistics& c : e.cells) o << cell_table(c, e);
  } else if (!e.cells.empty()) {
    o << fmt::format(
        "\n## Statistics\n\nAccuracy in percent over every seed and test document; 95% intervals from a two-level "
        "bootstrap ({}, resampling seeds and documents); pairs compared paired over the same seeds and "
        "documents, Holm-corrected over {}; tier 1 is the best variant and every one not resolved from it, and so "
        "on.\n{}",
        replicates_text(e), holm_family(e), few_seeds_note(e));
    for (const CellStatistics& c : e.cells) o << cell_table(c, e);
  }
  o << order_section(e) << usage_section(e);
  return o.str();
}

ReportStatistic evidence_statistic() {
  return {"evidence", ReportPlace::after_results, evidence_json, nullptr,
          [](const StudyReport& r, const PlotOutcome&) { return evidence_markdown(r); }};
}

}  // namespace rotor

// report.md: the study's tables for people, its plots (or how to draw them)
// and the exact configs and command that produced it.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "trainers/config/config_loader.h"
#include "trainers/run/run_directory.h"
#include "trainers/study/report_metrics.h"
#include "trainers/study/report_statistics.h"
#include "trainers/training/progress.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

std::string fixed(double v, int digits) { return fmt::format("{:.{}f}", v, digits); }

// "53.20 ± 1.10" in percent; "–" when no seed has a value.
std::string percent(const SeedStats& s) {
  if (s.n == 0 || std::isnan(s.mean)) return "–";
  return fixed(100 * s.mean, 2) + (s.n > 1 ? " ± " + fixed(100 * s.std, 2) : "");
}

const SeedStats& metric(const VariantSummary& v, const std::string& key) {
  static const SeedStats none = seed_stats({});
  const auto it = v.metrics.find(key);
  return it == v.metrics.end() ? none : it->second;
}

// "--:|" once per per-split metric column: its numbers right-aligned.
std::string metric_alignments(const StudyReport& r) {
  std::string out;
  for (size_t i = 0; i < split_columns(*r.objective).size(); ++i) out += "--:|";
  return out;
}

// A language model's numbers as they are (3 decimals); other objectives' scores, fractions, in percent.
std::string shown(const StudyReport& r, double v) {
  return r.evidence.nats_per_token() ? fixed(v, 3) : fixed(100 * v, 2);
}
std::string shown(const StudyReport& r, const SeedStats& s) {
  if (s.n == 0 || std::isnan(s.mean)) return "–";
  if (!r.evidence.nats_per_token()) return percent(s);
  return fixed(s.mean, 3) + (s.n > 1 ? " ± " + fixed(s.std, 3) : "");
}

std::string results_table(const StudyReport& r) {
  std::ostringstream o;
  o << "| Variant | Position | Parameters |";
  for (const ReportColumn& c : split_columns(*r.objective)) o << " " << c.header << " |";
  o << " Tokens/s | Wall time | Runs |\n|---|---|--:|" << metric_alignments(r) << "--:|--:|--:|\n";
  for (size_t i = 0; i < r.variants.size(); ++i) {
    const VariantSummary& v = r.variants[i];
    const SeedStats& speed = metric(v, "tokens_per_s");
    const SeedStats& wall = metric(v, "elapsed_s");
    o << "| " << v.name << " | " << r.manifest.spec.variants[i].config.model.position.type << " | " << v.parameters
      << " | ";
    for (const ReportColumn& c : split_columns(*r.objective)) o << shown(r, metric(v, c.key)) << " | ";
    o << (speed.n ? fixed(speed.mean, 0) : "–") << " | " << (wall.n ? format_duration(wall.mean) : "–") << " | "
      << v.finished << "/" << v.runs << " |\n";
  }
  return o.str();
}

std::string seed_table(const StudyReport& r) {
  std::ostringstream o;
  o << "| Run | Seed |";
  for (const ReportColumn& c : split_columns(*r.objective)) o << " " << c.header << " |";
  o << " Best step / steps | Tokens/s | Wall time |\n|---|--:|" << metric_alignments(r) << "--:|--:|--:|\n";
  for (const RunResult& run : r.runs) {
    o << "| " << run.run.variant << " | " << run.run.seed << " | ";
    if (!run.finished) {
      o << "not finished |";
      for (size_t i = 0; i < split_columns(*r.objective).size() + 2; ++i) o << " |";
      o << "\n";
      continue;
    }
    for (const ReportColumn& c : split_columns(*r.objective)) {
      const auto it = run.metrics.find(c.key);
      o << (it == run.metrics.end() ? "–" : shown(r, it->second)) << " | ";
    }
    o << run.best_step << " / " << run.steps << " | " << fixed(run.tokens_per_s, 0) << " | "
      << format_duration(run.elapsed_s) << " |\n";
  }
  return o.str();
}

// "perplexity" for a language model, else "<evidence metric> (%)": "token accuracy (%)".
std::string sweep_heading(const StudyReport& r) {
  if (r.evidence.nats_per_token()) return "perplexity";
  return evidence_declaration(*r.objective).shown_name() + " (%)";
}

// One table per split: a row per variant and scaling, a column per length.
std::string sweep_tables(const StudyReport& r) {
  const StudySpec& spec = r.manifest.spec;
  std::ostringstream o;
  std::vector<std::string> reasons;
  for (const std::string& split : spec.evaluation.splits) {
    std::vector<int64_t> lengths;
    for (const VariantSummary& v : r.variants)
      for (const SweepStats& s : v.sweep)
        if (s.point.split == split && std::find(lengths.begin(), lengths.end(), s.point.length) == lengths.end())
          lengths.push_back(s.point.length);
    std::sort(lengths.begin(), lengths.end());
    o << "\n**" << split << "** " << sweep_heading(r)
      << " by evaluation window length (tokens):\n\n| Variant | Scaling |";
    for (int64_t l : lengths) o << " " << l << " |";
    o << "\n|---|---|";
    for (size_t i = 0; i < lengths.size(); ++i) o << "--:|";
    o << "\n";
    for (const VariantSummary& v : r.variants)
      for (const std::string& scaling : spec.evaluation.scalings) {
        std::ostringstream row;
        bool any = false;
        for (int64_t l : lengths) {
          const SweepStats* cell = nullptr;
          for (const SweepStats& s : v.sweep)
            if (s.point.split == split && s.point.length == l && s.point.scaling == scaling) cell = &s;
          row << " ";
          if (!cell) {
            row << (scaling == unscaled() ? "–" : "") << " |";
            continue;
          }
          any = true;
          if (cell->available) {
            row << shown(r, cell->metric(sweep_metric(*r.objective))) << " |";
            continue;
          }
          auto it = std::find(reasons.begin(), reasons.end(), cell->point.reason);
          if (it == reasons.end()) it = reasons.insert(reasons.end(), cell->point.reason);
          row << "n/a [" << (it - reasons.begin() + 1) << "] |";
        }
        if (any) o << "| " << v.name << " | " << scaling << " |" << row.str() << "\n";
      }
  }
  for (size_t i = 0; i < reasons.size(); ++i) o << "\n[" << i + 1 << "] " << reasons[i] << "\n";
  return o.str();
}

std::string plots_section(const StudyReport& r, const PlotOutcome& plots) {
  if (!plots.problem.empty())
    return "Plots were not drawn: " + plots.problem +
           "\nThe tables above and report.csv/report.json hold every "
           "number. To draw the plots, install Debian's `python3-matplotlib` (`apt-get install python3-matplotlib`) "
           "and rebuild the report: `rotor compare --report " +
           r.dir + "`.\n";
  std::string out;
  for (const std::string& f : plots.files)  // the offset profiles and frequency use are shown in their own section
    if (fs::path(f).extension() == ".png" && f.rfind("plots/offsets_", 0) != 0 && f.rfind("plots/frequencies_", 0) != 0)
      out += "![" + fs::path(f).stem().string() + "](" + f + ")\n\n";
  return out + "Every plot is also in SVG next to its PNG in plots/.\n";
}

// "Trained by: `2e8571b` (40 runs), `97f8102` (5 runs)." from the runs' summaries
// ("" for a summary written before they named their build).
std::string builds_sentence(const StudyReport& r) {
  std::map<std::string, int> runs;
  for (const RunResult& run : r.runs)
    if (run.finished) ++runs[run.build];
  std::string s;
  for (const auto& [build, n] : runs)
    s += (s.empty() ? "" : ", ") + (build.empty() ? std::string("an unnamed older build") : "`" + build + "`") +
         fmt::format(" ({} run{})", n, n == 1 ? "" : "s");
  return s.empty() ? "" : "Trained by: " + s + ". `rotor --version` names a build.\n\n";
}

std::string configs_section(const StudyReport& r) {
  const StudySpec& spec = r.manifest.spec;
  std::ostringstream o;
  o << builds_sentence(r) << "Command:\n\n```\n"
    << r.manifest.command << "\n```\n\nStudy spec (" << spec.path << "):\n\n```yaml\n"
    << spec.text << (spec.text.empty() || spec.text.back() == '\n' ? "" : "\n") << "```\n\n"
    << "Each run trains `" << spec.base << "` with the spec's `set`, its variant's overrides, then "
    << "`run.seed`, `data.seed` = the seed and `run.name` = the run id; the trainer writes the exact config to "
    << "`runs/<variant>-seed<seed>/config.yaml`. That of each variant's first seed:\n";
  for (const StudyVariant& v : spec.variants) {
    const RunResult& first =
        *std::find_if(r.runs.begin(), r.runs.end(), [&](const RunResult& run) { return run.run.variant == v.name; });
    std::ifstream in(RunDirectory(first.dir).config_path());
    std::stringstream trained;
    trained << in.rdbuf();
    o << "\n<details><summary>" << v.name << ":";
    for (const std::string& ov : v.overrides) o << " <code>" << ov << "</code>";
    o << "</summary>\n\n```yaml\n"
      << (in ? trained.str() : "# not trained yet; before the seed's overrides:\n" + dump_config(v.config))
      << "```\n</details>\n";
  }
  return o.str();
}

}  // namespace

std::string report_markdown(const StudyReport& r, const PlotOutcome& plots) {
  const StudySpec& spec = r.manifest.spec;
  std::ostringstream o;
  o << "# Study: " << fs::path(spec.path).stem().string() << "\n\n"
    << r.variants.size() << " variants x " << spec.seeds.size() << " seeds; base config `" << spec.base << "`. "
    << (r.evidence.nats_per_token() ? "Perplexity (e^loss) and loss in nats per token (lower is better)"
                                    : percent_metrics_sentence(*r.objective))
    << ", mean ± standard deviation over seeds (n - 1), of the best checkpoint (by validation "
    << (spec.variants.empty() ? std::string("accuracy") : spec.variants[0].config.train.best_metric)
    << "). Tokens/s and wall time are training means over seeds, measured on a machine that may have been running "
       "other work (other runs of the study with --jobs): they say as much about its load as about the "
       "encoding.\n\n## Results\n\n"
    << results_table(r) << "\n"
    << statistics_markdown(r, plots, ReportPlace::after_results) << "\n## Per seed\n\n"
    << seed_table(r)
    << "\n## Length extrapolation\n\nThe best checkpoint of every run evaluated with windows of each length; "
       "RoPE scalings (scaling factor = length / training length) only beyond the training length.\n"
    << sweep_tables(r) << statistics_markdown(r, plots, ReportPlace::after_sweeps) << "\n## Plots\n\n"
    << plots_section(r, plots) << "\n## Configs\n\n"
    << configs_section(r);
  return o.str();
}

}  // namespace rotor

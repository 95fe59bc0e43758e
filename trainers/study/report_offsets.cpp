// report.md's attention-against-distance section and report.json's
// offset_profiles: each variant's first-seed profiles, plots and, on the
// offset task, whether they show the offset (study/offset_check.h); beside a
// rotary variant's profiles its frequency use (report.json's frequency_use).
#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "datasets/tasks/separation_tasks.h"
#include "trainers/study/attention_usage.h"
#include "trainers/study/frequency_measurement.h"
#include "trainers/study/offset_check.h"
#include "trainers/study/report_statistics.h"

namespace rotor {
namespace {

// The variant's run of the first seed, whose profiles the report shows.
const RunResult& profiled_run(const StudyReport& r, const std::string& variant) {
  return *std::find_if(r.runs.begin(), r.runs.end(), [&](const RunResult& run) {
    return run.run.variant == variant && run.run.seed == r.manifest.spec.seeds.front();
  });
}

std::string unavailable_text(const StudyReport& r, const RunResult& run) {
  if (!run.finished) return "not measured: the run has not finished";
  if (run.offsets.reason == "not measured")
    return "not measured (the study ran before offset profiles were part of it); rerun `" + r.manifest.command +
           "` to measure them for the finished runs";
  return "n/a: " + run.offsets.reason;
}

std::string mean_distances(const OffsetProfileRecord& record) {
  std::string out;
  for (size_t l = 0; l < record.layers.size(); ++l) {
    out += fmt::format("{}layer {}:", l ? "; " : "", l);
    for (const HeadOffsetProfile& h : record.layers[l]) out += fmt::format(" {:.2f}", h.mean_distance);
  }
  return out;
}

// `kind`: "offsets" or "frequencies", the plots' stem and alt text.
std::string plot_links(const std::string& kind, const std::string& variant, size_t layers, const PlotOutcome& plots) {
  if (!plots.problem.empty()) return "Plots not drawn (see Plots below).\n";
  std::string out;
  for (size_t l = 0; l < layers; ++l) {
    const std::string png = fmt::format("plots/{}_{}_L{}.png", kind, variant, l);
    if (std::find(plots.files.begin(), plots.files.end(), png) != plots.files.end())
      out += fmt::format("![{} {} layer {}]({})\n", variant, kind, l, png);
  }
  return out;
}

// A rotary variant's frequency use, measured on the same checkpoint and windows as its profiles.
std::string frequency_text(const StudyReport& r, const RunResult& run, const PlotOutcome& plots) {
  std::string o =
      "\nFrequency use (Barbero et al. 2024; `rotor analyze frequencies`): per head (rows) and frequency "
      "pair (columns, fastest first), the pair's mean share of |q·k|; and the q and k pair norms "
      "against frequency.";
  if (!run.frequencies.available)
    return o + " " +
           (run.frequencies.reason == "not measured" && run.finished
                ? "Not measured (the study ran before frequency use was part of it); rerun `" + r.manifest.command +
                      "` to measure it for the finished runs.\n"
                : "n/a: " + (run.finished ? run.frequencies.reason : "the run has not finished") + ".\n");
  return o + "\n\n" + plot_links("frequencies", run.run.variant, run.frequencies.measured["layers"].size(), plots);
}

nlohmann::json frequencies_json(const StudyReport& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const StudyVariant& v : r.manifest.spec.variants) {
    if (!measures_frequency_use(v.config)) continue;
    const RunResult& run = profiled_run(r, v.name);
    nlohmann::json j = run.frequencies;
    j.update({{"variant", v.name}, {"seed", run.run.seed}, {"position", v.config.model.position.type}});
    out.push_back(j);
  }
  return out;
}

nlohmann::json offsets_json(const StudyReport& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const StudyVariant& v : r.manifest.spec.variants) {
    const RunResult& run = profiled_run(r, v.name);
    nlohmann::json j = run.offsets;
    j.update({{"variant", v.name}, {"seed", run.run.seed}, {"position", v.config.model.position.type}});
    if (const int64_t k = task_offset(v.config))
      j["offset_check"] = {{"offset", k},
                           {"spike_ratio", kOffsetSpikeRatio},
                           {"shown", strongest_offset_spike(run.offsets, k).shown()},
                           {"text", offset_check_text(run.offsets, k)}};
    out.push_back(j);
  }
  return out;
}

std::string offsets_markdown(const StudyReport& r, const PlotOutcome& plots) {
  const StudySpec& spec = r.manifest.spec;
  std::ostringstream o;
  o << "\n## Attention against distance\n\nPer layer and head, the mean attention mass at each signed distance j − i "
       "(key − query) on up to "
    << kAttentionWindows << " validation documents cut to the training length, of the best checkpoint of seed "
    << spec.seeds.front()
    << " of each variant (`rotor analyze offsets` measures any checkpoint, split and length). A head that looks "
       "locally peaks at 0 or ±1, one that reads a fixed offset spikes there, a uniform one is flat.";
  if (std::any_of(spec.variants.begin(), spec.variants.end(),
                  [](const StudyVariant& v) { return task_offset(v.config); }))
    o << fmt::format(
        " The task reads the symbol k positions after a marker, so on it the profiles are of the rows whose query is "
        "the marker ({}; over every row, the one row that reads +k is diluted by the others: `rotor analyze offsets "
        "--query`): a profile shows the offset when a head's mass at +k or −k is at least {:g} times the larger of "
        "its masses at the two neighbouring distances.",
        kOffsetMarker, kOffsetSpikeRatio);
  o << "\n";
  for (const StudyVariant& v : spec.variants) {
    const RunResult& run = profiled_run(r, v.name);
    o << "\n### " << v.name << " (seed " << run.run.seed << ")\n\n";
    if (!run.offsets.available) {
      o << unavailable_text(r, run) << ".\n";
    } else {
      o << "Mean attention distance |j − i| per head, " << mean_distances(run.offsets) << ".\n";
      if (const int64_t k = task_offset(v.config))
        o << "\nOffset check: " << offset_check_text(run.offsets, k) << ".\n";
      o << "\n" << plot_links("offsets", v.name, run.offsets.layers.size(), plots);
    }
    if (measures_frequency_use(v.config)) o << frequency_text(r, run, plots);
  }
  return o.str();
}

}  // namespace

ReportStatistic offset_profiles_statistic() {
  return {"offset_profiles", ReportPlace::after_sweeps,
          [](const StudyReport& r) {
            return nlohmann::json{{"offset_profiles", offsets_json(r)}, {"frequency_use", frequencies_json(r)}};
          },
          nullptr, offsets_markdown};
}

}  // namespace rotor

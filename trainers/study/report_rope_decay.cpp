// report.json's "rope_decay": the decay curve (rope_decay.h) for the first
// variant with RoPE's frequencies, at its head dimension and base, out to the
// longest evaluation length; tools/plot_study.py draws it. None without such
// a variant.
#include "models/position_encoding.h"
#include "trainers/study/report_statistics.h"
#include "trainers/study/rope_decay.h"

namespace rotor {
namespace {

nlohmann::json rope_decay_json(const StudyReport& r) {
  const StudySpec& spec = r.manifest.spec;
  for (const StudyVariant& v : spec.variants) {
    if (!position_encoding(v.config.model.position.type).rope_frequencies) continue;
    const int64_t head_dim = v.config.model.rotary_dims();
    const double base = v.config.model.position.number("base");
    int64_t longest = v.config.data.max_len;
    for (int64_t l : spec.evaluation.lengths) longest = std::max(longest, l);
    nlohmann::json points = nlohmann::json::array();
    for (const RopeDecayPoint& p : rope_decay(head_dim, base, longest, 0))
      points.push_back({{"distance", p.distance}, {"bound", p.bound}, {"score", p.score}});
    return {{"rope_decay", {{"head_dim", head_dim}, {"base", base}, {"points", points}}}};
  }
  return nlohmann::json::object();
}

}  // namespace

ReportStatistic rope_decay_statistic() {
  return {"rope_decay", ReportPlace::after_sweeps, rope_decay_json, nullptr, nullptr};
}

}  // namespace rotor

#include "trainers/study/offset_check.h"

#include <algorithm>

#include <fmt/format.h>

namespace rotor {
namespace {

// mass / neighbour, ordering a spike over flat ground (neighbour 0) above any finite ratio.
bool stronger(const OffsetSpike& a, const OffsetSpike& b) {
  if (b.layer < 0) return true;
  return a.mass * b.neighbour > b.mass * a.neighbour || (a.neighbour == 0.0 && b.neighbour == 0.0 && a.mass > b.mass);
}

std::string ratio_text(const OffsetSpike& s) {
  if (s.neighbour == 0.0) return "with nothing at its neighbours";
  return fmt::format("{:.1f}x its neighbours' {:.3f}", s.mass / s.neighbour, s.neighbour);
}

}  // namespace

int64_t task_offset(const Config& config) { return config.data.task == "offset" ? config.data.generated.offset : 0; }

OffsetSpike strongest_offset_spike(const OffsetProfileRecord& record, int64_t k) {
  OffsetSpike best;
  if (!record.available || k + 1 > record.max_offset) return best;
  for (size_t l = 0; l < record.layers.size(); ++l)
    for (const HeadOffsetProfile& h : record.layers[l])
      for (const int64_t d : {k, -k}) {
        const OffsetSpike s{static_cast<int64_t>(l), h.head, d, record.mass(h, d),
                            std::max(record.mass(h, d - 1), record.mass(h, d + 1))};
        if (stronger(s, best)) best = s;
      }
  return best;
}

std::string offset_check_text(const OffsetProfileRecord& record, int64_t k) {
  if (!record.available) return fmt::format("offset {} not checked: no profile ({})", k, record.reason);
  const OffsetSpike s = strongest_offset_spike(record, k);
  if (s.layer < 0)
    return fmt::format("offset {} not checked: the profile reaches distance {} only, not {}", k, record.max_offset,
                       k + 1);
  const std::string where =
      fmt::format("layer {} head {} has mass {:.3f} at {:+d}, {}", s.layer, s.head, s.mass, s.distance, ratio_text(s));
  if (s.shown()) return fmt::format("**shows** the offset {}: {}", k, where);
  return fmt::format(
      "does **not** show the offset {} (no head's mass at +{} or -{} reaches {:g}x its neighbours; "
      "the strongest: {})",
      k, k, k, kOffsetSpikeRatio, where);
}

}  // namespace rotor

#pragma once
// Does a variant's attention-distance profile show the offset its task reads?
// The separation suite's offset task labels a sample by the symbol k
// positions after a marker (data.task: offset, k = data.generated.offset), so
// a model that solved it may hold a head that reads distance +k (from the
// marker) or -k (back to it). A head shows the offset when its mean mass at
// +k or -k is at least kOffsetSpikeRatio times the larger of its masses at
// the two neighbouring distances: a spike, not the smooth slope that local or
// uniform attention has there. Structural, not causal: a model may solve the
// task through several layers without such a head.
#include <cstdint>
#include <string>

#include "trainers/config/config.h"
#include "trainers/run/offset_profile_record.h"

namespace rotor {

constexpr double kOffsetSpikeRatio = 2.0;

// k of an offset-task config; 0 for any other task.
int64_t task_offset(const Config& config);

struct OffsetSpike {
  int64_t layer = -1, head = -1;  // -1: no head could be checked (no profile reaches k + 1)
  int64_t distance = 0;           // +k or -k
  double mass = 0.0;              // at `distance`
  double neighbour = 0.0;         // the larger mass at distance - 1 and distance + 1

  bool shown() const { return mass > 0.0 && mass >= kOffsetSpikeRatio * neighbour; }
};

// The head and sign with the largest mass against its neighbours, over every
// layer and head of an available record.
OffsetSpike strongest_offset_spike(const OffsetProfileRecord& record, int64_t k);

// One sentence for the report: whether the profile shows the offset, and where.
std::string offset_check_text(const OffsetProfileRecord& record, int64_t k);

}  // namespace rotor

#pragma once
// Checkpoints, run directories and study manifests store the resolved config.
// One stored by an older build may lack a key that did not exist yet, and its
// run was trained with the behaviour of that time, which is not always the
// key's default: parsed as it is, the run would be evaluated or resumed as
// another model without a word. It may also hold keys that build recorded
// and no run read.
#include <string>

namespace rotor {

// `stored_yaml` as today's build would have stored it (unchanged when nothing
// differs), to parse in its place:
//   model.embedding_scale, model.position.scale: before they existed, sinusoidal
//   ran with Vaswani's scales (sqrt_d, sqrt(1/2)); the other encodings with today's defaults.
//   model.position.*: builds before 2026-11-28 recorded every encoding's keys at
//   that day's defaults; those the run's encoding does not declare are dropped
//   (kept, a changed default would make them look set, and the config unreadable).
//   model.interleaved_position.*: builds 89cb934 to 1c7bb0f recorded the whole model's keys
//   (randomized, ..., logn_scaling) under it too, at their defaults; they are dropped.
std::string upgrade_stored_config(const std::string& stored_yaml);

}  // namespace rotor

#pragma once
// RUN/length_sweep.json: the best checkpoint of a finished run evaluated on
// held-out splits at several window lengths and RoPE scalings (evaluated by
// study/length_sweep.h), one cell per (split, length, scaling):
//   {"checkpoint": path, "cells": [{"split", "length", "scaling", "available",
//    then "metrics" (the scores its objective declares, metrics_events.h),
//    "documents", "predictions", "labels" when available, else "reason"}]}
// A language model's cell has instead "language_model": true, "stride",
// "max_tokens" (0 or absent: the whole split), and when available "metrics",
// "documents" (windows), "window_nats" and "window_tokens". A sequence task's
// cell adds "sample_numerators" and "sample_denominators".
// A cell written before "metrics" has the metrics as fields of its own
// ("accuracy", "macro_f1", "loss", "perplexity", "bits_per_token"), read the same.
// Written with sorted keys and an indent of 2.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/model_options.h"
#include "trainers/run/metrics_events.h"

namespace rotor {

// The scaling of a cell evaluated as its model was trained: RopeScaling::none's
// name. Cells, study specs and reports keep a scaling by its name (as
// length_sweep.json and report.json write it); this is where "unscaled" is said.
inline const std::string& unscaled() {
  static const std::string name = option_name(RopeScaling::none);
  return name;
}

struct SweepCell {
  std::string split;
  int64_t length = 0;
  std::string scaling = unscaled();
  bool available = false;  // false: n/a, see reason
  std::string reason;
  SplitScores scores;  // as the run's objective declares them; empty when not available
  int64_t documents = 0;
  // Per document of the split, in split order: the predicted class (-1: not
  // served) and the label. The study's paired statistics compare runs
  // document by document; a cell stored without them (an older rotor) is
  // evaluated again.
  std::vector<int32_t> predictions, labels;
  // A cell of the split's token stream (its objective's row reads a token
  // stream: a language model), written with "language_model": true: the split
  // in windows of `length` inputs scoring `stride` new tokens each (== length:
  // non-overlapping), with each window's summed nats and scored tokens in
  // stream order. The windows of one length and stride are the same for every
  // run, so the statistics pair runs window by window.
  // With max_tokens > 0 only the split's first max_tokens targets are scored
  // (lm_windows in datasets/lm_windows.h).
  bool stream_windows = false;
  int64_t stride = 0;
  int64_t max_tokens = 0;
  std::vector<double> window_nats;
  std::vector<int64_t> window_tokens;
  // A sequence task's cell (EvidenceUnit::sample): per sample of the split, in
  // split order, its numerator and denominator (correct target tokens over
  // target tokens, or all right 0/1 over 1). Written only when present.
  std::vector<double> sample_numerators, sample_denominators;

  // The cell's value of `name`; NaN when it has none (not available, or not a metric of its objective).
  double metric(const std::string& name) const { return scores.has(name) ? scores.get(name) : std::nan(""); }
  bool same_point(const SweepCell& other) const {
    return split == other.split && length == other.length && scaling == other.scaling;
  }
};

// The point a cell measures, not measured yet.
inline SweepCell sweep_point(const std::string& split, int64_t length, const std::string& scaling = unscaled()) {
  SweepCell point;
  point.split = split;
  point.length = length;
  point.scaling = scaling;
  return point;
}

struct LengthSweep {
  std::string checkpoint;  // the best checkpoint evaluated
  std::vector<SweepCell> cells;
};

void to_json(nlohmann::json& j, const SweepCell& c);
void from_json(const nlohmann::json& j, SweepCell& c);
void to_json(nlohmann::json& j, const LengthSweep& s);
void from_json(const nlohmann::json& j, LengthSweep& s);

// The sweep at `path`: none when the file does not exist; RunFileError
// naming the file when it is not a sweep.
LengthSweep read_length_sweep_file(const std::string& path);
void write_length_sweep_file(const std::string& path, const LengthSweep& sweep);

}  // namespace rotor

#pragma once
// RUN/length_sweep.json: the best checkpoint of a finished run evaluated on
// held-out splits at several window lengths and RoPE scalings (evaluated by
// study/length_sweep.h), one cell per (split, length, scaling):
//   {"checkpoint": path, "cells": [{"split", "length", "scaling", "available",
//    then "accuracy", "macro_f1", "loss", "documents", "predictions", "labels"
//    when available, else "reason"}]}
// A language model's cell has instead "language_model": true, "stride",
// "max_tokens" (0 or absent: the whole split),
// "loss" (nats per token), "perplexity", "bits_per_token", "accuracy"
// (next token), "documents" (windows), "window_nats" and "window_tokens".
// written with sorted keys and an indent of 2.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rotor {

struct SweepCell {
  std::string split;
  int64_t length = 0;
  std::string scaling = "none";
  bool available = false;  // false: n/a, see reason
  std::string reason;
  double accuracy = 0.0, macro_f1 = 0.0, loss = 0.0;
  int64_t documents = 0;
  // Per document of the split, in split order: the predicted class (-1: not
  // served) and the label. The study's paired statistics compare runs
  // document by document; a cell stored without them (an older rotor) is
  // evaluated again.
  std::vector<int32_t> predictions, labels;
  // A language model's cell: the split in windows of `length` inputs scoring
  // `stride` new tokens each (== length: non-overlapping), with each window's
  // summed nats and scored tokens in stream order; loss is nats per token and
  // accuracy next-token accuracy. The windows of one length and stride are
  // the same for every run, so the statistics pair runs window by window.
  // With max_tokens > 0 only the split's first max_tokens targets are scored
  // (lm_windows in datasets/lm_windows.h).
  bool language_model = false;
  int64_t stride = 0;
  int64_t max_tokens = 0;
  std::vector<double> window_nats;
  std::vector<int64_t> window_tokens;

  bool same_point(const SweepCell& other) const {
    return split == other.split && length == other.length && scaling == other.scaling;
  }
};

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

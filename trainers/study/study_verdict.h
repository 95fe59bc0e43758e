#pragma once
// The statistics of one split's cells in one line of words, e.g.
//   "rope > sinusoidal at 512 and 1024 tokens (p < 0.01); rope, t5_bias, alibi tied"
//
// - A variant resolved below (or above) every other variant with runs, among
//   three or more, is one clause, merged across the cells where it holds:
//   "sinusoidal below every other variant at 512 and 1024 tokens (p < 0.05)"
//   (a language model's: "lower loss than", "higher loss than"); its pairs
//   are not repeated.
// - Each other Holm-significant ordered pair is one clause, merged across the
//   cells where it holds ("at 64 and 128 tokens"); the bound is the band
//   (p < 0.001, p < 0.01, p < 0.05, else p < alpha) of its largest adjusted p.
//   Pairs with the same leader, cells and band share a clause ("rope > none,
//   alibi at ..."), and leaders with the same losers, cells and band share
//   one too ("rope, xpos > none, alibi at ...").
// - Each rank tier with more than one member is a tied group; a group found
//   in every cell is listed once without lengths, otherwise with the cells
//   where it is a tier. A tier with two members resolved from each other
//   (ties are not transitive) reads "b, c not resolved from a", a its best.
// - Nothing significant anywhere: "no difference the data can resolve: all
//   variants tied (Holm-corrected p >= 0.05)".
// A cell with a scaling other than none is labelled "1024 (ntk)". Where lower
// is better (a language model's loss) the leader is written first with "<":
//   "alibi < rope at 1024 and 2048 tokens (p < 0.01)".
#include <string>
#include <vector>

#include "trainers/study/study_evidence.h"
#include "trainers/study/study_statistics.h"

namespace rotor {

// `cells`: those of one split, in the order their lengths should be read.
std::string split_verdict(const std::vector<CellStatistics>& cells, double alpha);

// Whether the variants use positions, each finding once with the variants it
// holds for, the strongest first:
//   "t5_bias: identical test predictions to `none` on 1 of 2 seeds (...)"
//   "cannot be told apart from `none` (no position) at any evaluated length: rope, alibi (...)"
//   "attention stayed close to uniform (...) in 2 of 3 runs of rope, none; 3 of 3 runs of alibi (...)"
// `reference`: the no-position variant ("" when the study has none).
std::vector<std::string> usage_verdicts(const std::vector<PositionUsage>& usage, const std::string& reference);

}  // namespace rotor

#pragma once
// The statistics of one split's cells in one line of words, e.g.
//   "rope > sinusoidal at 512 and 1024 tokens (p < 0.01); rope, t5_bias, alibi tied"
//
// - Each Holm-significant ordered pair is one clause, merged across the cells
//   where it holds ("at 64 and 128 tokens"); the bound is the band (p < 0.001,
//   p < 0.01, p < 0.05, else p < alpha) of its largest adjusted p. Pairs with
//   the same leader, cells and band share a clause: "rope > none, alibi at ...".
// - Each rank tier with more than one member is a tied group; a group found
//   in every cell is listed once without lengths, otherwise with the cells
//   where it is a tier.
// - Nothing significant anywhere: "no difference the data can resolve: all
//   variants tied (Holm-corrected p >= 0.05)".
// A cell with a scaling other than none is labelled "1024 (ntk)". Where lower
// is better (a language model's loss) the leader is written first with "<":
//   "alibi < rope at 1024 and 2048 tokens (p < 0.01)".
#include <string>
#include <vector>

#include "trainers/study/study_statistics.h"

namespace rotor {

// `cells`: those of one split, in the order their lengths should be read.
std::string split_verdict(const std::vector<CellStatistics>& cells, double alpha);

}  // namespace rotor

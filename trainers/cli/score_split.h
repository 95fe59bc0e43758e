#pragma once
// eval and predict score a tokenized split of a restored model the same way:
// under mpirun every rank scores a share of the batches, with a progress line
// on rank 0.
#include "datasets/dataset.h"
#include "trainers/training/evaluator.h"
#include "trainers/training/restored_model.h"

namespace rotor {

DocumentScores score(RestoredModel& r, const TokenizedSplit& split, const DataConfig& data);

}  // namespace rotor

#pragma once
// What every rank of a data-parallel run must agree on besides gradients:
// whether to stop, which checkpoint to resume, and the starting weights.
#include <functional>
#include <string>

#include "engine/optim/optimizer.h"
#include "engine/parameters.h"
#include "trainers/distributed/communicator.h"

namespace rotor {

// The signal any rank received (0: none); every rank gets the same answer,
// so all stop after the same step.
int agree_on_stop(Communicator& comm, int local_signal);

// Rank 0's `text` on every rank.
std::string broadcast_string(Communicator& comm, const std::string& text);

// Copies rank 0's parameter values to every rank, then compares checksums of
// the values and optimizer state; throws Error naming the first rank that differs.
void synchronize_parameters(Communicator& comm, ParameterStore& params, const Optimizer& optimizer);

// Runs `work` and returns its result. On several ranks, an exception prints
// "error (rank r of N): ..." and aborts every rank: the others may be waiting
// for this one in a collective. On one rank exceptions pass through.
int run_or_abort_all(Communicator& comm, const std::function<int()>& work);

}  // namespace rotor

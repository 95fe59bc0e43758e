#pragma once
// The processes of a data-parallel run and the few collectives training
// needs. SingleProcessCommunicator is the world of a plain `rotor train`;
// MpiCommunicator (built when MPI is found) spans the ranks of `mpirun`.
//
// Every reduction here has a fixed order that does not depend on message
// timing or on the MPI library's algorithm choice, so a run's bits are a
// function of its config and the number of gradient groups only.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "engine/tensor.h"

namespace rotor {

// A sum of one buffer over all ranks that is under way. The buffer holds this
// rank's partial on start and the total once done() returns true.
class PendingSum {
 public:
  virtual ~PendingSum() = default;
  // Advances the communication without blocking; true once the total is in place.
  virtual bool done() = 0;
  virtual void wait() = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool is_root() const { return rank() == 0; }

  virtual void barrier() = 0;
  // A barrier for ranks that may wait long (a study rank done with its share
  // while another still trains): it sleeps between polls instead of spinning
  // on a core the training ranks need.
  virtual void idle_barrier() = 0;
  // Copies `bytes` bytes at `data` from rank `root` to every rank.
  virtual void broadcast(void* data, size_t bytes, int root) = 0;
  // Every rank's `mine`, in rank order; ranks may send different lengths.
  virtual std::vector<std::vector<double>> allgather(const std::vector<double>& mine) = 0;
  // Starts summing `buffer` (F32 or F64, same length on every rank) in place.
  // Each element's total is ordered_sum() of the ranks' values in rank order,
  // computed once by the rank that owns that slice and sent to the others, so
  // every rank holds the same bits. `buffer` must stay alive until done.
  // Sums must be started in the same order on every rank and finished (done()
  // true, or wait()) in that order.
  virtual std::unique_ptr<PendingSum> start_sum(Tensor buffer) = 0;
  // Ends every rank of the run at once with `code` (a rank failed alone and
  // the others would wait for it forever).
  [[noreturn]] void abort(int code) {
    abort_all(code);
    std::exit(code);
  }
  // Bytes this rank has sent through start_sum so far (for benchmarks).
  int64_t bytes_sent() const { return bytes_sent_; }

 protected:
  virtual void abort_all(int code) = 0;
  int64_t bytes_sent_ = 0;
};

// The communicator of this process: MPI when rotor was built with it and
// started by mpirun with several ranks, else a single process. Created on
// first use; throws Error when started on several ranks without MPI built in.
Communicator& world();

// The ranks mpirun started, whatever world() is (the same object unless
// runs_alone_on_each_rank() was called).
Communicator& launched_ranks();

// `mpirun rotor compare`: every rank trains whole runs of a study by itself.
// From this call on world() is this process alone, so trainings and
// evaluations never reach for the other ranks, while launched_ranks() still
// spans them to share out the runs. Must come before the first world().
void runs_alone_on_each_rank();

}  // namespace rotor

#pragma once
// The ranks of an `mpirun` job (MPI_COMM_WORLD). Initialises MPI on
// construction and finalises it on destruction; MPI calls come from the main
// thread only (MPI_THREAD_FUNNELED: OpenMP threads run kernels, not MPI).
#include <mpi.h>

#include "trainers/distributed/communicator.h"

namespace rotor {

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator();
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void barrier() override;
  void idle_barrier() override;
  void broadcast(void* data, size_t bytes, int root) override;
  std::vector<std::vector<double>> allgather(const std::vector<double>& mine) override;
  std::unique_ptr<PendingSum> start_sum(Tensor buffer) override;

 private:
  void abort_all(int code) override;
  int rank_ = 0, size_ = 1;
  // Communicators of the two halves of start_sum (see OrderedSum).
  MPI_Comm scatter_ = MPI_COMM_NULL, gather_ = MPI_COMM_NULL;
};

}  // namespace rotor

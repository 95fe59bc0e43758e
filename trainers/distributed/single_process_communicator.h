#pragma once
// The world of a run without MPI: one rank; every collective is the identity.
#include "trainers/distributed/communicator.h"

namespace rotor {

class SingleProcessCommunicator : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void barrier() override {}
  void idle_barrier() override {}
  void broadcast(void*, size_t, int) override {}
  std::vector<std::vector<double>> allgather(const std::vector<double>& mine) override { return {mine}; }
  std::unique_ptr<PendingSum> start_sum(Tensor buffer) override;

 private:
  void abort_all(int) override {}
};

}  // namespace rotor

#include "trainers/distributed/single_process_communicator.h"

namespace rotor {
namespace {

class FinishedSum : public PendingSum {
 public:
  bool done() override { return true; }
  void wait() override {}
};

}  // namespace

std::unique_ptr<PendingSum> SingleProcessCommunicator::start_sum(Tensor) { return std::make_unique<FinishedSum>(); }

}  // namespace rotor

#include <cstdlib>
#include <memory>
#include <string>

#include "engine/error.h"

#include "trainers/distributed/communicator.h"
#include "trainers/distributed/single_process_communicator.h"
#ifdef ROTOR_WITH_MPI
#include "trainers/distributed/mpi_communicator.h"
#endif

namespace rotor {
namespace {

// The number of ranks an MPI launcher started (1 when none did).
int ranks_from_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* value = std::getenv(name)) return std::atoi(value);
  return 1;
}

bool alone_on_each_rank = false;
bool world_created = false;

}  // namespace

Communicator& launched_ranks() {
  // A function-local static: MPI is initialised on first use and finalised at exit.
  static const std::unique_ptr<Communicator> instance = []() -> std::unique_ptr<Communicator> {
    const int ranks = ranks_from_launcher();
#ifdef ROTOR_WITH_MPI
    if (ranks > 1) return std::make_unique<MpiCommunicator>();
#else
    if (ranks > 1)
      throw Error("rotor was started by mpirun with " + std::to_string(ranks) + " ranks but built without MPI " +
                  "(ROTOR_MPI=OFF): install libopenmpi-dev (tools/install-deps.sh) and rebuild, or run one process");
#endif
    return std::make_unique<SingleProcessCommunicator>();
  }();
  return *instance;
}

Communicator& world() {
  world_created = true;
  if (!alone_on_each_rank) return launched_ranks();
  static SingleProcessCommunicator alone;
  return alone;
}

void runs_alone_on_each_rank() {
  if (world_created) throw Error("runs_alone_on_each_rank: world() was already in use");
  alone_on_each_rank = true;
}

}  // namespace rotor

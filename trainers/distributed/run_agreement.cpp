#include "trainers/distributed/run_agreement.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>

#include <fmt/format.h>

#include "engine/error.h"
#include "engine/fnv1a.h"

namespace rotor {
namespace {

// FNV-1a over the raw bytes of the state: equal state has equal bits, so equal hashes.
void hash_tensor(Fnv1a& hash, const Tensor& t) {
  dispatch(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    hash.bytes(t.data<T>(), static_cast<size_t>(t.numel()) * sizeof(T));
  });
}

uint64_t state_hash(const ParameterStore& params, const Optimizer& optimizer) {
  Fnv1a hash;
  hash_tensor(hash, params.values());
  const OptimizerState state = optimizer.export_state();
  for (const auto& [name, tensor] : state.tensors) {
    hash.bytes(name.data(), name.size());
    hash_tensor(hash, tensor);
  }
  for (const auto& [name, value] : state.scalars) {
    hash.bytes(name.data(), name.size());
    hash.value(value);
  }
  return hash.hash();
}

}  // namespace

int agree_on_stop(Communicator& comm, int local_signal) {
  if (comm.size() == 1) return local_signal;
  int agreed = 0;
  for (const std::vector<double>& rank : comm.allgather({static_cast<double>(local_signal)}))
    agreed = std::max(agreed, static_cast<int>(rank[0]));
  return agreed;
}

std::string broadcast_string(Communicator& comm, const std::string& text) {
  uint64_t length = text.size();
  comm.broadcast(&length, sizeof length, 0);
  std::string out = comm.is_root() ? text : std::string(length, '\0');
  comm.broadcast(out.data(), length, 0);
  return out;
}

void synchronize_parameters(Communicator& comm, ParameterStore& params, const Optimizer& optimizer) {
  if (comm.size() == 1) return;
  Tensor& values = params.values();
  dispatch(values.dtype(), [&](auto tag) {
    using T = decltype(tag);
    comm.broadcast(values.data<T>(), static_cast<size_t>(values.numel()) * sizeof(T), 0);
  });
  // A hash in two exact 32-bit halves (a double holds 53 bits).
  const uint64_t hash = state_hash(params, optimizer);
  const auto all = comm.allgather({static_cast<double>(hash >> 32), static_cast<double>(hash & 0xffffffffULL)});
  for (int r = 1; r < comm.size(); ++r)
    if (all[static_cast<size_t>(r)] != all[0])
      throw Error("rank " + std::to_string(r) +
                  " holds different parameters or optimizer state than rank 0 after "
                  "the broadcast (checksums differ): the ranks did not load the same checkpoint or build the same "
                  "model; check that every machine sees the same run directory, data and rotor build");
}

int run_or_abort_all(Communicator& comm, const std::function<int()>& work) {
  if (comm.size() == 1) return work();
  try {
    return work();
  } catch (const std::exception& err) {
    fmt::print(stderr, "\nerror (rank {} of {}): {}\n", comm.rank(), comm.size(), err.what());
    comm.abort(1);
  }
}

}  // namespace rotor

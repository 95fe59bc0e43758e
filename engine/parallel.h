#pragma once
// OpenMP helpers with thread-count-independent partitioning: work is cut into
// fixed-size chunks that depend only on the problem size, and chunks are dealt
// to threads statically. A chunk's result therefore never depends on how many
// threads ran, and reductions combine chunk partials in chunk order.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rotor {

constexpr int64_t kElementwiseGrain = 16384;

// Items per chunk when each item costs about `item_cost` element operations:
// chunks of ~kElementwiseGrain work, so small problems stay on one thread
// (an OpenMP region costs more than it saves below that, and far more when
// the cores are shared).
inline int64_t grain_for(int64_t item_cost) {
  return item_cost >= kElementwiseGrain ? 1 : kElementwiseGrain / (item_cost > 0 ? item_cost : 1);
}

int num_threads();
void set_num_threads(int n);

// The most threads a process gives OpenMP: kThreadsPerCore per core. More only
// adds contention, and libgomp crashes creating a team of ~100,000.
constexpr int64_t kThreadsPerCore = 4;
int64_t machine_cores();
int64_t most_threads();

template <class F>
void parallel_for(int64_t n, int64_t grain, F&& f) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  const int64_t chunks = (n + grain - 1) / grain;
  if (chunks == 1) {
    f(int64_t{0}, n);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t b = c * grain;
    const int64_t e = b + grain < n ? b + grain : n;
    f(b, e);
  }
}

// Sum of f(begin, end) over fixed chunks, added in chunk order (deterministic).
template <class F>
double parallel_sum(int64_t n, int64_t grain, F&& f) {
  if (n <= 0) return 0.0;
  const int64_t chunks = (n + grain - 1) / grain;
  std::vector<double> partial(static_cast<size_t>(chunks), 0.0);
  parallel_for(chunks, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      const int64_t b = c * grain;
      const int64_t e = b + grain < n ? b + grain : n;
      partial[static_cast<size_t>(c)] = f(b, e);
    }
  });
  double s = 0.0;
  for (double p : partial) s += p;
  return s;
}

}  // namespace rotor

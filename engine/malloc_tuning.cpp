#include "engine/malloc_tuning.h"

#include <climits>

#if defined(ROTOR_WITH_TCMALLOC)
#include <gperftools/malloc_extension.h>
#elif defined(__GLIBC__)
#include <malloc.h>
#endif

namespace rotor {
namespace {

bool apply_malloc_tuning() {
#if defined(ROTOR_WITH_TCMALLOC)
  // Keep freed spans: the next step needs the same memory again.
  MallocExtension::instance()->SetMemoryReleaseRate(0.0);
  return MallocExtension::instance()->GetMemoryReleaseRate() == 0.0;
#elif defined(__GLIBC__)
  // M_MMAP_MAX 0: every block comes from the heap, whose freed chunks are
  // reused (split and merged) for any later size. M_TRIM_THRESHOLD at its
  // largest: the heap's free top is kept for the next step.
  const bool no_mmap = mallopt(M_MMAP_MAX, 0) == 1;
  const bool no_trim = mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1;
  return no_mmap && no_trim;
#else
  return false;
#endif
}

}  // namespace

bool tune_malloc_for_repeated_steps() {
  static const bool applied = apply_malloc_tuning();  // thread-safe, once
  return applied;
}

}  // namespace rotor

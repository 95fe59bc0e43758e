#pragma once
// How a global batch is split among ranks. Every batch is cut into `groups`
// groups of consecutive examples (sizes differ by at most one); each group is
// a separate forward and backward pass whose gradient is summed with the
// others in one fixed tree order (ordered_sum.h). Rank r computes the block
// of groups [r*G/N, (r+1)*G/N). So a run's bits depend on G, never on N: a
// config with G = 2 trains bit-identically on 1 or 2 ranks, and a checkpoint
// can be resumed with any N that divides G.
#include <cstdint>
#include <optional>
#include <string>

#include "datasets/batch.h"

namespace rotor {

class GradientGroups {
 public:
  // Throws ConfigError (naming train.gradient_groups) when `ranks` ranks cannot
  // split `groups` groups into tree-aligned blocks.
  GradientGroups(int64_t groups, int rank, int ranks);

  int64_t groups() const { return groups_; }
  int64_t local() const { return groups_ / ranks_; }  // groups this rank computes
  int64_t first() const { return rank_ * local(); }   // this rank's first group

  // Examples [begin, end) of group g in a batch of `batch_size` examples.
  int64_t begin(int64_t g, int64_t batch_size) const { return batch_size * g / groups_; }
  int64_t end(int64_t g, int64_t batch_size) const { return begin(g + 1, batch_size); }
  // The rows of `batch` in group g (padding unchanged, so every group sees
  // the global batch's sequence length whichever rank computes it).
  Batch slice(const Batch& batch, int64_t g) const;

 private:
  int64_t groups_;
  int rank_, ranks_;
};

// The groups a run uses: `configured`, or when it is 0 the checkpoint's groups
// when resuming (`checkpoint_groups`, a 0 of checkpoints older than the key
// is set to 1) and one per rank for a new run. Throws ConfigError when
// resuming on a number of ranks that cannot reproduce the checkpoint's groups.
int64_t resolve_gradient_groups(int64_t configured, int64_t* checkpoint_groups, int ranks,
                                const std::optional<std::string>& checkpoint);

}  // namespace rotor

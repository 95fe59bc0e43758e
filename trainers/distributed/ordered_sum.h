#pragma once
// The one summation order of data-parallel gradients: a pairwise tree that
// halves the list of partials, [0, n) = [0, n/2) + [n/2, n). Partials of
// consecutive example groups summed this way give the same bits whether one
// process sums all groups or each rank sums its own block of groups first and
// the ranks' partials are then summed, as long as every block is a node of the
// tree (tree_has_blocks).
#include <cstdint>
#include <vector>

namespace rotor {

// out[i] = tree sum over p of parts[p][i], for i < count. `out` may alias parts[0].
template <typename T>
void ordered_sum(const std::vector<const T*>& parts, T* out, int64_t count);

// True when the tree over `n` leaves has a node for each of the `blocks`
// equal consecutive blocks, so per-block sums can be finished by the tree over blocks.
bool tree_has_blocks(int64_t n, int64_t blocks);

}  // namespace rotor

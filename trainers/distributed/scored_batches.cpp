#include "trainers/distributed/scored_batches.h"

#include <algorithm>

namespace rotor {

std::vector<ScoredBatch> gather_in_order(Communicator& comm, std::vector<ScoredBatch> mine) {
  if (comm.size() == 1) return mine;
  // Flattened as [index, rows, classes, doc ids..., labels..., logits...] per batch.
  std::vector<double> flat;
  for (const ScoredBatch& b : mine) {
    const size_t rows = b.doc_ids.size();
    flat.insert(flat.end(), {static_cast<double>(b.index), static_cast<double>(rows),
                             static_cast<double>(rows ? b.logits.size() / rows : 0)});
    flat.insert(flat.end(), b.doc_ids.begin(), b.doc_ids.end());
    flat.insert(flat.end(), b.labels.begin(), b.labels.end());
    flat.insert(flat.end(), b.logits.begin(), b.logits.end());
  }
  std::vector<ScoredBatch> all;
  for (const std::vector<double>& from : comm.allgather(flat))
    for (size_t at = 0; at < from.size();) {
      ScoredBatch b;
      b.index = static_cast<int64_t>(from[at]);
      const auto rows = static_cast<size_t>(from[at + 1]), classes = static_cast<size_t>(from[at + 2]);
      auto p = from.begin() + static_cast<std::ptrdiff_t>(at + 3);
      b.doc_ids.assign(p, p + static_cast<std::ptrdiff_t>(rows));
      b.labels.assign(p + static_cast<std::ptrdiff_t>(rows), p + static_cast<std::ptrdiff_t>(2 * rows));
      b.logits.assign(p + static_cast<std::ptrdiff_t>(2 * rows),
                      p + static_cast<std::ptrdiff_t>(2 * rows + rows * classes));
      at += 3 + 2 * rows + rows * classes;
      all.push_back(std::move(b));
    }
  std::sort(all.begin(), all.end(), [](const ScoredBatch& a, const ScoredBatch& b) { return a.index < b.index; });
  return all;
}

}  // namespace rotor

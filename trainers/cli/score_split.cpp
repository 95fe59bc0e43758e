#include "trainers/cli/score_split.h"

#include <chrono>

#include "trainers/distributed/communicator.h"
#include "trainers/training/progress.h"

namespace rotor {

DocumentScores score(RestoredModel& r, const TokenizedSplit& split, const DataConfig& data) {
  Sampler sampler = make_eval_sampler(split, data);
  // Under mpirun every rank scores a share of the batches; rank 0 reports.
  const Progress::Style style =
      world().is_root() ? Progress::parse(r.header.config.run.progress) : Progress::Style::none;
  Progress progress("eval " + split.name, sampler.batches_in_epoch(), style);
  const auto start = std::chrono::steady_clock::now();
  DocumentScores s = score_documents(*r.model, sampler, split.num_docs(), [&](int64_t done, int64_t) {
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    progress.update(done, "", dt > 0 ? static_cast<double>(done) / dt : 0.0, "batches/s");
  });
  progress.finish("");
  return s;
}

}  // namespace rotor

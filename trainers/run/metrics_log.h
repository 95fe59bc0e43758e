#pragma once
// metrics.jsonl: one JSON object per training-log or evaluation event
// (metrics_events.h), flushed as it is written. Reopening for a resumed run
// drops the events after the checkpoint's step and any "final" events
// (metrics_history.h), so the file reads as one uninterrupted run.
#include <cstdint>
#include <fstream>
#include <string>

#include "trainers/run/metrics_events.h"

namespace rotor {

class MetricsLog {
 public:
  // keep_through_step < 0: start a new file.
  MetricsLog(const std::string& path, int64_t keep_through_step);
  void write(const TrainEvent& event) { write_line(event); }
  void write(const EvalEvent& event) { write_line(event); }
  void write(const FinalEvent& event) { write_line(event); }
  const std::string& path() const { return path_; }

 private:
  void write_line(const JsonFields& event);

  std::string path_;
  std::ofstream out_;
};

}  // namespace rotor

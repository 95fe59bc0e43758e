#pragma once
// One training process per run directory: RunLock holds an exclusive flock on
// RUN/.lock (which records the holder's pid) for its lifetime. The kernel
// drops the lock when the process dies, so a crash never leaves a stale lock.
// flock locks belong to an open file description, so a second RunLock on the
// same directory fails even inside the same process. A study directory
// (`rotor compare`) is locked the same way, as "study directory".
#include <optional>
#include <string>

#include "engine/error.h"

namespace rotor {

// The run directory is held by another process (or another RunLock).
struct RunInUseError : Error {
  using Error::Error;
};

class RunLock {
 public:
  // Creates run_dir if needed and takes the lock without waiting. Throws
  // RunInUseError naming the directory and the holder's pid when it is held,
  // Error when the lock file cannot be created.
  // `what` names the directory in messages ("run directory", "study directory").
  explicit RunLock(const std::string& run_dir, const std::string& what = "run directory");
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

// The pid (as text; "unknown" when unrecorded) of the process holding
// run_dir's lock, or nullopt when none does. Creates nothing, so a read-only
// run directory can be asked; the probe holds a shared lock for an instant.
std::optional<std::string> lock_holder(const std::string& run_dir);

}  // namespace rotor

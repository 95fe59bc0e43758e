#include "trainers/study/child_runs.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "trainers/study/run_results.h"
#include "trainers/study/study_clock.h"
#include "trainers/training/progress.h"
#include "trainers/training/signals.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

struct Child {
  pid_t pid = -1;
  StudyRun run;
  size_t index = 0;  // 1-based position in the study
  std::chrono::steady_clock::time_point start;
};

std::string last_line(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

// fork and exec rather than posix_spawn: the child must ask for a parent-death
// signal between the two, so that it never outlives the study (SIGKILL of the
// study included). SIGTERM makes it checkpoint and stop like a lone `rotor
// train`. Only async-signal-safe calls run between fork and exec.
pid_t spawn_run(const StudySpec& spec, const StudyOptions& options, const StudyRun& run, const std::string& log) {
  std::vector<std::string> args{"/proc/self/exe", "compare", spec.path, "--out", options.dir, "--only", run.id};
  if (!spec.task.empty()) args.insert(args.end(), {"--task", spec.task});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t study = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw ConfigError("cannot start a process for run " + run.id + ": " + std::strerror(errno));
  if (pid > 0) return pid;
  // Its own process group: a Ctrl-C at the terminal reaches the study alone, which passes it on once.
  setpgid(0, 0);
  // The study may have died before prctl: then the signal would never come.
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != study) _exit(127);
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(127);
  execv(argv[0], argv.data());
  _exit(127);
}

// The children of a study and its ETA (StudyClock).
class ChildPool {
 public:
  ChildPool(const StudySpec& spec, const StudyOptions& options, StudyClock& clock, size_t total)
      : spec_(spec), options_(options), clock_(clock), total_(total) {}

  size_t active() const { return active_.size(); }

  void start(const StudyRun& run, size_t index) {
    const std::string run_dir = run_directory(options_.dir, run);
    fs::create_directories(run_dir);
    active_.push_back(
        {spawn_run(spec_, options_, run, run_dir + "/compare.log"), run, index, std::chrono::steady_clock::now()});
    fmt::print(stderr, "== run {} of {} started: {} (log {}/compare.log) | study ETA {}\n", index, total_, run.id,
               run_dir, clock_.eta(options_.jobs));
  }

  void signal_all(int sig) const {
    for (const Child& c : active_) kill(c.pid, sig);
  }

  // Collects one finished child if there is one (else waits a moment).
  void reap() {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    const auto it = std::find_if(active_.begin(), active_.end(), [&](const Child& c) { return c.pid == pid; });
    if (pid <= 0 || it == active_.end()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      return;
    }
    const Child c = *it;
    active_.erase(it);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.start).count();
    if (code == 0) {
      clock_.run_done(c.run.id, seconds, finished_training(run_directory(options_.dir, c.run)));
      fmt::print(stderr, "== run {} of {} done: {} in {}\n", c.index, total_, c.run.id, format_duration(seconds));
      return;
    }
    unfinished_.push_back(c.run.id);
    if (WIFSIGNALED(status)) {  // no checkpoint at the kill: its last one is where it resumes
      fmt::print(stderr,
                 "== run {} of {} killed: {} by signal {} ({}); rerun the same command to resume it from its last "
                 "checkpoint\n",
                 c.index, total_, c.run.id, WTERMSIG(status), signal_name(WTERMSIG(status)));
    } else {
      fmt::print(stderr, "== run {} of {} stopped: {} (exit {}): {}\n", c.index, total_, c.run.id, code,
                 last_line(run_directory(options_.dir, c.run) + "/compare.log"));
    }
  }

  // The runs that stopped before they finished, in the order they stopped.
  const std::vector<std::string>& unfinished() const { return unfinished_; }

 private:
  const StudySpec& spec_;
  const StudyOptions& options_;
  StudyClock& clock_;
  size_t total_;
  std::vector<Child> active_;
  std::vector<std::string> unfinished_;
};

// After a stop: which runs did not finish, and how to go on.
void print_unfinished(std::vector<std::string> ids, const std::vector<StudyRun>& never_started) {
  for (const StudyRun& r : never_started) ids.push_back(r.id);
  std::string list;
  for (const std::string& id : ids) list += (list.empty() ? "" : ", ") + id;
  fmt::print(stderr,
             "study stopped; not finished: {}; rerun the same command to resume them (finished runs are kept)\n", list);
}

}  // namespace

void print_failed_runs(const std::vector<std::string>& ids) {
  std::string list;
  for (const std::string& id : ids) list += (list.empty() ? "" : ", ") + id;
  fmt::print(stderr,
             "study incomplete: {} run{} did not finish ({}; see above), the others did; no report was written. "
             "Rerun the same command to retry {} (finished runs are kept)\n",
             ids.size(), ids.size() == 1 ? "" : "s", list, ids.size() == 1 ? "it" : "them");
}

int run_children(const StudySpec& spec, const StudyOptions& options, const std::vector<StudyRun>& pending,
                 size_t already_done, size_t total, StudyClock& clock) {
  // Results do not depend on the thread count: share the cores between the
  // children unless the user chose a count.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::string per_child = std::to_string(std::max<int64_t>(1, static_cast<int64_t>(cores) / options.jobs));
  setenv("OMP_NUM_THREADS", per_child.c_str(), /*overwrite=*/0);
  install_stop_handlers();
  ChildPool pool(spec, options, clock, total);
  size_t next = 0;
  int forwarded = 0;
  // A run that fails, or a child killed by a signal the study did not get,
  // leaves the other runs to finish: they are independent.
  while ((next < pending.size() && forwarded == 0) || pool.active() > 0) {
    if (const int sig = stop_requested(); sig != 0 && forwarded == 0) {
      pool.signal_all(sig);  // once: a second SIGINT would make a child leave without its checkpoint
      forwarded = sig;
    }
    while (forwarded == 0 && next < pending.size() && pool.active() < static_cast<size_t>(options.jobs)) {
      pool.start(pending[next], already_done + next + 1);
      ++next;
    }
    pool.reap();
  }
  restore_default_handlers();
  if (forwarded != 0) {
    print_unfinished(pool.unfinished(),
                     std::vector<StudyRun>(pending.begin() + static_cast<std::ptrdiff_t>(next), pending.end()));
    return 128 + forwarded;
  }
  if (pool.unfinished().empty()) return 0;
  print_failed_runs(pool.unfinished());
  return 1;  // the study itself was not stopped: its exit code is not a child's 137
}

}  // namespace rotor

#include "trainers/study/child_runs.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "trainers/training/progress.h"
#include "trainers/training/signals.h"
#include "trainers/study/run_results.h"

extern char** environ;

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

pid_t spawn_run(const StudySpec& spec, const StudyOptions& options, const StudyRun& run, const std::string& log) {
  std::vector<std::string> args{"/proc/self/exe", "compare", spec.path, "--out", options.dir, "--only", run.id};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = -1;
  const int err = posix_spawn(&pid, "/proc/self/exe", &files, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (err != 0) throw ConfigError("cannot start a process for run " + run.id + ": " + std::strerror(err));
  return pid;
}

}  // namespace

int run_children(const StudySpec& spec, const StudyOptions& options, const std::vector<StudyRun>& pending,
                 size_t already_done, size_t total) {
  // Results do not depend on the thread count: share the cores between the
  // children unless the user chose a count.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::string per_child = std::to_string(std::max<int64_t>(1, static_cast<int64_t>(cores) / options.jobs));
  setenv("OMP_NUM_THREADS", per_child.c_str(), /*overwrite=*/0);
  install_stop_handlers();
  std::vector<Child> active;
  size_t next = 0, done = 0;
  double busy_s = 0.0;
  int failure = 0, forwarded = 0;
  while ((next < pending.size() && failure == 0 && stop_requested() == 0) || !active.empty()) {
    if (const int sig = stop_requested(); sig != 0 && forwarded == 0) {
      for (const Child& c : active) kill(c.pid, sig);
      forwarded = sig;
    }
    while (failure == 0 && stop_requested() == 0 && next < pending.size() &&
           active.size() < static_cast<size_t>(options.jobs)) {
      const StudyRun& run = pending[next];
      const std::string run_dir = run_directory(options.dir, run);
      fs::create_directories(run_dir);
      const std::string eta = done == 0 ? "known after the first run"
                                        : format_duration(busy_s / static_cast<double>(done) *
                                                          static_cast<double>(pending.size() - done) /
                                                          static_cast<double>(options.jobs));
      active.push_back({spawn_run(spec, options, run, run_dir + "/compare.log"), run, already_done + next + 1,
                        std::chrono::steady_clock::now()});
      std::fprintf(stderr, "== run %zu of %zu started: %s (log %s/compare.log) | study ETA %s\n", active.back().index,
                   total, run.id.c_str(), run_dir.c_str(), eta.c_str());
      ++next;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    for (size_t i = 0; i < active.size(); ++i) {
      if (active[i].pid != pid) continue;
      const Child c = active[i];
      active.erase(active.begin() + static_cast<std::ptrdiff_t>(i));
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.start).count();
      const std::string log = run_directory(options.dir, c.run) + "/compare.log";
      if (code == 0) {
        busy_s += seconds;
        ++done;
        std::fprintf(stderr, "== run %zu of %zu done: %s in %s\n", c.index, total, c.run.id.c_str(),
                     format_duration(seconds).c_str());
      } else {
        std::fprintf(stderr, "== run %zu of %zu stopped: %s (exit %d): %s\n", c.index, total, c.run.id.c_str(), code,
                     last_line(log).c_str());
        if (failure == 0) failure = code;
      }
    }
  }
  restore_default_handlers();
  if (forwarded != 0) {
    std::fprintf(stderr, "study stopped; rerun the same command to continue (finished runs are kept)\n");
    return 128 + forwarded;
  }
  return failure;
}

}  // namespace rotor

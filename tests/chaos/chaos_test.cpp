// Chaos test: SIGKILLs a small training run at random moments (a third of
// them while a checkpoint is being written), resumes it each time with
// --resume auto, and checks that the end result equals an uninterrupted run
// bit for bit: every parameter, the optimizer state, the training state, and
// every metrics event (timing fields aside).
//
// Usage: chaos_test ROTOR [KILLS [SEED]]
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "datasets/json_line.h"
#include "storage/checkpoint.h"

namespace fs = std::filesystem;
using rotor::CheckpointContents;

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kWritePauseMs = 300;  // ROTOR_TEST_WRITE_PAUSE_MS (pause at "temp-partial") for the runs killed mid-write
constexpr int kTotalSteps = 200;
constexpr int kCheckpointEvery = 4;

pid_t launch(const std::string& rotor, const std::vector<std::string>& args, const std::string& log,
             bool pause_writes) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!std::freopen(log.c_str(), "a", stderr) || !std::freopen("/dev/null", "w", stdout)) ::_exit(126);
    if (pause_writes) ::setenv("ROTOR_TEST_WRITE_PAUSE_MS", std::to_string(kWritePauseMs).c_str(), 1);
    std::vector<char*> argv{const_cast<char*>(rotor.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(rotor.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

// The exit status, or 128 + signal.
int wait_for(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool exited(pid_t pid, int* code) {
  int status = 0;
  if (::waitpid(pid, &status, WNOHANG) != pid) return false;
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return true;
}

// The checkpoint temporary (step-N.h5.tmp-<pid>) process `pid` is writing,
// or ""; those of killed processes stay until the next save sweeps them.
std::string checkpoint_being_written(const std::string& run, pid_t pid) {
  const std::string suffix = ".h5.tmp-" + std::to_string(pid);
  std::error_code ec;
  for (fs::directory_iterator it(run + "/checkpoints", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("step-", 0) == 0 && name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return name;
    }
  }
  return "";
}

// The step of the newest committed checkpoint, or 0.
long committed_step(const std::string& run) {
  std::ifstream in(run + "/checkpoints/latest");
  std::string name;
  in >> name;
  return name.size() > 5 ? std::atol(name.c_str() + 5) : 0;
}

// A metrics or summary line without its timing fields.
std::string without_timing(const std::string& line, const std::string& where) {
  int64_t replaced = 0;
  std::string out;
  for (const auto& [key, value] : rotor::parse_json_object(line, where, replaced)) {
    if (key == "elapsed_s" || key == "tokens_per_s") continue;
    out += key + "=" + value.text + ";";
  }
  return out;
}

std::vector<std::string> events(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  int n = 0;
  for (std::string line; std::getline(in, line);) out.push_back(without_timing(line, path + ":" + std::to_string(++n)));
  return out;
}

int g_failures = 0;
void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what.c_str());
    ++g_failures;
  }
}

template <class Map, class Same>
void compare_maps(const Map& a, const Map& b, const char* kind, Same same) {
  expect(a.size() == b.size(), std::string(kind) + ": different numbers of entries");
  for (const auto& [key, value] : a) {
    if (key == "state/elapsed_s") continue;
    const auto it = b.find(key);
    expect(it != b.end() && same(value, it->second), std::string(kind) + " " + key + " differs");
  }
}

void compare_checkpoints(const std::string& a_path, const std::string& b_path) {
  const CheckpointContents a = rotor::read_checkpoint(a_path), b = rotor::read_checkpoint(b_path);
  compare_maps(a.tensors, b.tensors, "tensor", [](const rotor::Tensor& x, const rotor::Tensor& y) {
    const size_t n = static_cast<size_t>(x.numel()) * rotor::dtype_size(x.dtype());
    return x.dtype() == y.dtype() && x.shape() == y.shape() &&
           std::memcmp(x.dtype() == rotor::DType::F32 ? static_cast<const void*>(x.data<float>()) : x.data<double>(),
                       y.dtype() == rotor::DType::F32 ? static_cast<const void*>(y.data<float>()) : y.data<double>(),
                       n) == 0;
  });
  compare_maps(a.integers, b.integers, "integer", [](int64_t x, int64_t y) { return x == y; });
  compare_maps(a.reals, b.reals, "real", [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; });
  compare_maps(a.texts, b.texts, "text", [](const std::string& x, const std::string& y) { return x == y; });
  compare_maps(a.blobs, b.blobs, "blob", [](const auto& x, const auto& y) { return x == y; });
}

std::string latest_checkpoint(const std::string& run) {
  std::ifstream in(run + "/checkpoints/latest");
  std::string name;
  in >> name;
  return run + "/checkpoints/" + name;
}

struct Setup {
  std::string rotor, dir, config;
  int kills_wanted = 0;
  unsigned seed = 0;
};

// Start-up time (data, model, first step and checkpoint) and step time of an
// uninterrupted run, to scale the random delays before the kills.
struct Timing {
  double startup_s = 0, ref_seconds = 0, step_s = 0;
};

struct Tally {
  std::string steps_at_kills;  // newest committed step after each kill
  int kills = 0, kills_this_run = 0, during_writes = 0, launches = 0, finished_early = 0;
};

// When to kill one launch: once the newest checkpoint reaches target_step and
// delay_s more has passed, or (target_write) in the pause of the checkpoint
// write after writes_to_skip others.
struct KillPlan {
  bool target_write = false;
  long target_step = 0;
  double delay_s = 0;
  int writes_to_skip = 0;
};

std::string write_config(const std::string& dir) {
  const std::string config = dir + "/run.yaml";
  std::ofstream(config) << "run: {progress: lines, log_every: 3, threads: 1}\n"
                           "model: {d_model: 16, layers: 1, heads: 2, d_ff: 32}\n"
                           "data: {task: listops-easy, train_size: 160, eval_size: 32, max_len: 32, batch_size: 8, "
                           "data_dir: " +
                               dir +
                               "/data}\n"
                               "train: {max_steps: " +
                               std::to_string(kTotalSteps) +
                               ", eval_every: 10, checkpoint_every: " + std::to_string(kCheckpointEvery) +
                               ", keep_last: 2}\n";
  return config;
}

// Runs a one-step probe and the uninterrupted reference run (to `ref`); the
// reference's exit status.
int run_reference(const Setup& s, const std::string& ref, Timing* timing) {
  auto t0 = Clock::now();
  wait_for(launch(s.rotor, {"train", s.config, "--out", s.dir + "/probe", "--stop-after", "1"}, s.dir + "/probe.log",
                  false));
  timing->startup_s = std::chrono::duration<double>(Clock::now() - t0).count();
  t0 = Clock::now();
  const int code = wait_for(launch(s.rotor, {"train", s.config, "--out", ref}, s.dir + "/reference.log", false));
  timing->ref_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  timing->step_s = std::max(0.1, timing->ref_seconds - timing->startup_s) / kTotalSteps;
  return code;
}

// Kill k lands while the newest checkpoint is at most limit(k): the limits
// climb evenly to 85% of the run, so the run is never over before its last
// kill even when this process is not scheduled for a while.
// A plain kill waits until the newest checkpoint reaches a random step up
// to limit(kills), then a random delay: up to the start-up time when that
// step is where the launch resumed (so start-up gets killed too), else up
// to one checkpoint interval. A write kill picks the first, second or
// third checkpoint this launch writes (within the limit) and a random
// moment in the pause halfway through it.
KillPlan plan_kill(bool target_write, int kills, int kills_wanted, long resumed_at, const Timing& timing,
                   std::mt19937& rng) {
  const int limit = kTotalSteps * 85 / 100 * (kills + 1) / (kills_wanted + 1);
  const long headroom = std::max(0L, limit - resumed_at);
  KillPlan plan;
  plan.target_write = target_write;
  plan.target_step = resumed_at + std::uniform_int_distribution<long>(0, headroom)(rng);
  plan.delay_s = std::uniform_real_distribution<double>(
      0.005, plan.target_step == resumed_at ? std::max(0.01, timing.startup_s) : kCheckpointEvery * timing.step_s)(rng);
  plan.writes_to_skip =
      std::uniform_int_distribution<int>(0, static_cast<int>(std::clamp(headroom / kCheckpointEvery - 1, 0L, 2L)))(rng);
  return plan;
}

// Waits for the moment of `plan` and SIGKILLs launch `pid` then; false when
// the launch exits first or survives the kill. *code: its exit status;
// *mid_write: whether a checkpoint was being written at the kill.
bool kill_as_planned(pid_t pid, const std::string& chaos, KillPlan plan, std::mt19937& rng, int* code,
                     bool* mid_write) {
  std::optional<Clock::time_point> reached;  // when the newest checkpoint reached target_step
  std::string seen_write;
  while (!exited(pid, code)) {
    bool now = false;
    if (plan.target_write) {
      const std::string writing = checkpoint_being_written(chaos, pid);
      if (!writing.empty() && writing != seen_write) {
        seen_write = writing;
        now = plan.writes_to_skip-- == 0;
      }
    } else {
      if (!reached && committed_step(chaos) >= plan.target_step) reached = Clock::now();
      now = reached && std::chrono::duration<double>(Clock::now() - *reached).count() >= plan.delay_s;
    }
    if (now) {
      if (plan.target_write) {
        std::this_thread::sleep_for(
            std::chrono::milliseconds(std::uniform_int_distribution<int>(0, kWritePauseMs / 3)(rng)));
      }
      *mid_write = !checkpoint_being_written(chaos, pid).empty();
      ::kill(pid, SIGKILL);
      *code = wait_for(pid);
      return *code == 128 + SIGKILL;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// Launches the run in `chaos` again and again with --resume auto, killing
// each launch at a random moment until kills_wanted kills, then lets the last
// launch finish. A launch that finishes before its kill starts a fresh run.
void run_with_kills(const Setup& s, const Timing& timing, const std::string& chaos, std::mt19937& rng, Tally* t) {
  while (true) {
    const bool target_write = t->kills < s.kills_wanted && t->kills % 3 == 0;
    std::vector<std::string> args{"train", s.config, "--out", chaos};
    if (t->launches++ > 0) args.insert(args.end(), {"--resume", "auto"});
    const long resumed_at = committed_step(chaos);
    const pid_t pid = launch(s.rotor, args, s.dir + "/chaos.log", target_write);
    int code = 0;
    if (t->kills >= s.kills_wanted) {
      code = wait_for(pid);
      expect(code == 0, "the last resume exited " + std::to_string(code));
      return;
    }
    const KillPlan plan = plan_kill(target_write, t->kills, s.kills_wanted, resumed_at, timing, rng);
    bool mid_write = false;
    if (kill_as_planned(pid, chaos, plan, rng, &code, &mid_write)) {
      t->steps_at_kills += " " + std::to_string(committed_step(chaos));
      ++t->kills;
      ++t->kills_this_run;
      t->during_writes += mid_write;
      continue;
    }
    expect(code == 0, "a resumed run exited " + std::to_string(code) + " (see " + s.dir + "/chaos.log)");
    if (code != 0) return;
    ++t->finished_early;  // finished before its kill moment: start over with a fresh run
    fs::remove_all(chaos);
    t->launches = t->kills_this_run = 0;
  }
}

void report_kills(const Setup& s, const Timing& timing, const Tally& t) {
  std::printf(
      "chaos: %d SIGKILLs (%d during checkpoint writes; %d in the run compared), %d launches, %d runs "
      "finished before their kill, seed %u\n",
      t.kills, t.during_writes, t.kills_this_run, t.launches, t.finished_early, s.seed);
  std::printf(
      "newest checkpoint after each kill:%s (of %d steps; the uninterrupted run took %.2f s, "
      "start-up %.2f s)\n",
      t.steps_at_kills.c_str(), kTotalSteps, timing.ref_seconds, timing.startup_s);
  expect(t.kills >= s.kills_wanted, "too few kills");
  expect(t.kills_this_run * 4 >= s.kills_wanted * 3, "the compared run was killed fewer than 3/4 of the times");
  expect(t.during_writes * 3 >= t.kills, "fewer than a third of the kills hit a checkpoint write");
}

// The killed-and-resumed run against the uninterrupted one: final checkpoint,
// every metrics event and the summary.
void compare_runs(const std::string& ref, const std::string& chaos) {
  compare_checkpoints(latest_checkpoint(ref), latest_checkpoint(chaos));
  const std::vector<std::string> a = events(ref + "/metrics.jsonl"), b = events(chaos + "/metrics.jsonl");
  expect(a.size() == b.size(),
         "metrics.jsonl: " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " events");
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    expect(a[i] == b[i], "metrics.jsonl event " + std::to_string(i + 1) + " differs:\n  " + a[i] + "\n  " + b[i]);
  expect(events(ref + "/summary.json") == events(chaos + "/summary.json"), "summary.json differs");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: chaos_test ROTOR [KILLS [SEED]]\n");
    return 2;
  }
  Setup s;
  s.rotor = fs::absolute(argv[1]).string();
  s.kills_wanted = argc > 2 ? std::atoi(argv[2]) : 24;
  s.seed = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : std::random_device{}();
  std::mt19937 rng(s.seed);
  char tmpl[] = "/tmp/rotor-chaos-XXXXXX";
  s.dir = ::mkdtemp(tmpl);
  s.config = write_config(s.dir);

  const std::string ref = s.dir + "/reference", chaos = s.dir + "/chaos";
  Timing timing;
  const int ref_code = run_reference(s, ref, &timing);
  if (ref_code != 0) {
    std::printf("FAILED: the uninterrupted run exited %d (see %s/reference.log)\n", ref_code, s.dir.c_str());
    return 1;
  }
  Tally tally;
  run_with_kills(s, timing, chaos, rng, &tally);
  report_kills(s, timing, tally);
  if (g_failures == 0) compare_runs(ref, chaos);
  if (g_failures == 0)
    fs::remove_all(s.dir);
  else
    std::printf("kept %s for inspection\n", s.dir.c_str());
  return g_failures == 0 ? 0 : 1;
}

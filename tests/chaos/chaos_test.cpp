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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: chaos_test ROTOR [KILLS [SEED]]\n");
    return 2;
  }
  const std::string rotor = fs::absolute(argv[1]).string();
  const int kills_wanted = argc > 2 ? std::atoi(argv[2]) : 24;
  const unsigned seed = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : std::random_device{}();
  std::mt19937 rng(seed);
  char tmpl[] = "/tmp/rotor-chaos-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
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

  const std::string ref = dir + "/reference", chaos = dir + "/chaos";
  // Start-up time (data, model, first step and checkpoint) and step time,
  // to scale the random delays before the kills.
  auto t0 = Clock::now();
  wait_for(launch(rotor, {"train", config, "--out", dir + "/probe", "--stop-after", "1"}, dir + "/probe.log", false));
  const double startup_s = std::chrono::duration<double>(Clock::now() - t0).count();
  t0 = Clock::now();
  const int ref_code = wait_for(launch(rotor, {"train", config, "--out", ref}, dir + "/reference.log", false));
  const double ref_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (ref_code != 0) {
    std::printf("FAILED: the uninterrupted run exited %d (see %s/reference.log)\n", ref_code, dir.c_str());
    return 1;
  }

  // Kill k lands while the newest checkpoint is at most limit(k): the limits
  // climb evenly to 85% of the run, so the run is never over before its last
  // kill even when this process is not scheduled for a while.
  const double step_s = std::max(0.1, ref_seconds - startup_s) / kTotalSteps;
  auto limit = [&](int k) { return kTotalSteps * 85 / 100 * (k + 1) / (kills_wanted + 1); };
  std::string steps_at_kills;  // newest committed step after each kill
  int kills = 0, kills_this_run = 0, during_writes = 0, launches = 0, finished_early = 0;
  while (true) {
    const bool target_write = kills < kills_wanted && kills % 3 == 0;
    std::vector<std::string> args{"train", config, "--out", chaos};
    if (launches++ > 0) args.insert(args.end(), {"--resume", "auto"});
    const long resumed_at = committed_step(chaos);
    const pid_t pid = launch(rotor, args, dir + "/chaos.log", target_write);
    int code = 0;
    if (kills >= kills_wanted) {
      code = wait_for(pid);
      expect(code == 0, "the last resume exited " + std::to_string(code));
      break;
    }
    // A plain kill waits until the newest checkpoint reaches a random step up
    // to limit(kills), then a random delay: up to the start-up time when that
    // step is where the launch resumed (so start-up gets killed too), else up
    // to one checkpoint interval. A write kill picks the first, second or
    // third checkpoint this launch writes (within the limit) and a random
    // moment in the pause halfway through it.
    const long headroom = std::max(0L, limit(kills) - resumed_at);
    const long target_step = resumed_at + std::uniform_int_distribution<long>(0, headroom)(rng);
    const double delay_s = std::uniform_real_distribution<double>(
        0.005, target_step == resumed_at ? std::max(0.01, startup_s) : kCheckpointEvery * step_s)(rng);
    int writes_to_skip = std::uniform_int_distribution<int>(
        0, static_cast<int>(std::clamp(headroom / kCheckpointEvery - 1, 0L, 2L)))(rng);
    std::optional<Clock::time_point> reached;  // when the newest checkpoint reached target_step
    std::string seen_write;
    bool killed = false;
    while (!killed && !exited(pid, &code)) {
      bool now = false;
      if (target_write) {
        const std::string writing = checkpoint_being_written(chaos, pid);
        if (!writing.empty() && writing != seen_write) {
          seen_write = writing;
          now = writes_to_skip-- == 0;
        }
      } else {
        if (!reached && committed_step(chaos) >= target_step) reached = Clock::now();
        now = reached && std::chrono::duration<double>(Clock::now() - *reached).count() >= delay_s;
      }
      if (now) {
        if (target_write) {
          std::this_thread::sleep_for(
              std::chrono::milliseconds(std::uniform_int_distribution<int>(0, kWritePauseMs / 3)(rng)));
        }
        const bool mid_write = !checkpoint_being_written(chaos, pid).empty();
        ::kill(pid, SIGKILL);
        code = wait_for(pid);
        killed = code == 128 + SIGKILL;
        if (killed) {
          steps_at_kills += " " + std::to_string(committed_step(chaos));
          ++kills;
          ++kills_this_run;
          during_writes += mid_write;
        }
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!killed) {
      expect(code == 0, "a resumed run exited " + std::to_string(code) + " (see " + dir + "/chaos.log)");
      if (code != 0) break;
      ++finished_early;  // finished before its kill moment: start over with a fresh run
      fs::remove_all(chaos);
      launches = kills_this_run = 0;
    }
  }
  std::printf(
      "chaos: %d SIGKILLs (%d during checkpoint writes; %d in the run compared), %d launches, %d runs "
      "finished before their kill, seed %u\n",
      kills, during_writes, kills_this_run, launches, finished_early, seed);
  std::printf(
      "newest checkpoint after each kill:%s (of %d steps; the uninterrupted run took %.2f s, "
      "start-up %.2f s)\n",
      steps_at_kills.c_str(), kTotalSteps, ref_seconds, startup_s);
  expect(kills >= kills_wanted, "too few kills");
  expect(kills_this_run * 4 >= kills_wanted * 3, "the compared run was killed fewer than 3/4 of the times");
  expect(during_writes * 3 >= kills, "fewer than a third of the kills hit a checkpoint write");
  if (g_failures == 0) {
    compare_checkpoints(latest_checkpoint(ref), latest_checkpoint(chaos));
    const std::vector<std::string> a = events(ref + "/metrics.jsonl"), b = events(chaos + "/metrics.jsonl");
    expect(a.size() == b.size(),
           "metrics.jsonl: " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " events");
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
      expect(a[i] == b[i], "metrics.jsonl event " + std::to_string(i + 1) + " differs:\n  " + a[i] + "\n  " + b[i]);
    expect(events(ref + "/summary.json") == events(chaos + "/summary.json"), "summary.json differs");
  }
  if (g_failures == 0)
    fs::remove_all(dir);
  else
    std::printf("kept %s for inspection\n", dir.c_str());
  return g_failures == 0 ? 0 : 1;
}

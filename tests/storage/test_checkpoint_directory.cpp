// The run's checkpoint folder: naming, the `latest` and `best` pointers, keep-last
// pruning, skipping damaged files, and what a crash at each point of a save
// leaves behind (simulated by a forked child that dies there).
#include <fmt/core.h>
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "checkpoint_test_support.h"
#include "storage/checkpoint_directory.h"
#include "storage/checkpoint_fs.h"

using namespace rotor;
using rotor::test::ScratchDir;

namespace {

const char* g_crash_stage = nullptr;
std::string g_crash_suffix;

void crash_here(const char* stage, const std::string& final_path) {
  const bool match =
      std::strcmp(stage, g_crash_stage) == 0 && final_path.size() >= g_crash_suffix.size() &&
      final_path.compare(final_path.size() - g_crash_suffix.size(), g_crash_suffix.size(), g_crash_suffix) == 0;
  if (match) ::_exit(0);
}

// Runs `work` in a child process that dies, like a killed process, at `stage`
// of the atomic write of the file whose path ends with `suffix`.
void crash_during(const std::function<void()>& work, const char* stage, const std::string& suffix) {
  g_crash_stage = stage;
  g_crash_suffix = suffix;
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    checkpoint_testing::set_crash_hook(crash_here);
    try {
      work();
    } catch (...) {
      ::_exit(4);
    }
    ::_exit(3);  // the crash point was never reached
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<int64_t> steps(const CheckpointDirectory& dir) {
  std::vector<int64_t> out;
  for (const auto& [step, path] : dir.list()) out.push_back(step);
  return out;
}

std::vector<std::string> temporaries(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(folder)) {
    if (checkpoint_fs::is_temp_name(e.path().filename().string())) out.push_back(e.path().string());
  }
  return out;
}

// A checkpoint that records its step and, as a trainer's does, the best step so far.
CheckpointContents at_step(int64_t step, int64_t best_step = -1) {
  CheckpointContents c = rotor::test::small_contents(static_cast<float>(step));
  c.integers["state/step"] = step;
  c.integers["state/best_step"] = best_step;
  return c;
}

int64_t step_in(const std::string& path) { return read_checkpoint(path).integers.at("state/step"); }
int64_t best_in(const std::string& path) { return read_checkpoint(path).integers.at("state/best_step"); }

ResolvedCheckpoint resolve(const std::string& given, std::vector<std::string>* warnings) {
  return resolve_checkpoint(given, warnings, best_in);
}

}  // namespace

TEST_CASE("checkpoint directory: file names", "[checkpoint]") {
  CheckpointDirectory dir("runs/a");
  CHECK(dir.dir() == "runs/a/checkpoints");
  CHECK(dir.path_for_step(0) == "runs/a/checkpoints/step-00000000.h5");
  CHECK(dir.path_for_step(1234) == "runs/a/checkpoints/step-00001234.h5");
  CHECK(dir.path_for_step(123456789) == "runs/a/checkpoints/step-123456789.h5");
  CHECK_THROWS_WITH(dir.path_for_step(-1), Catch::Contains("negative step -1"));
}

TEST_CASE("checkpoint directory: save updates latest and best and prunes to keep_last", "[checkpoint]") {
  ScratchDir run("ckdir-save");
  CheckpointDirectory dir(run.path());
  std::vector<std::string> warnings;
  CHECK_FALSE(dir.newest_valid(&warnings).has_value());  // no folder yet
  CHECK(warnings.empty());

  for (int64_t step : {100, 200, 300, 400, 500}) {
    const std::string path = dir.save(step, at_step(step), 2, /*best_step=*/step < 200 ? -1 : 200);
    CHECK(path == dir.path_for_step(step));
    CHECK(slurp(dir.dir() + "/latest") == std::filesystem::path(path).filename().string() + "\n");
    CHECK(std::filesystem::exists(dir.dir() + "/best") == (step >= 200));
  }
  CHECK(slurp(dir.dir() + "/best") == "step-00000200.h5\n");
  CHECK(steps(dir) == std::vector<int64_t>{200, 400, 500});  // best kept beyond keep_last
  CHECK(dir.newest_valid(&warnings) == dir.path_for_step(500));
  CHECK(warnings.empty());
  CHECK(step_in(dir.path_for_step(200)) == 200);

  SECTION("keep_last 0 keeps everything") {
    dir.save(600, at_step(600), 0, -1);
    CHECK(steps(dir) == std::vector<int64_t>{200, 400, 500, 600});
  }
  SECTION("the new file is kept even when a higher stale step exists") {
    dir.save(450, at_step(450), 1, -1);
    CHECK(steps(dir) == std::vector<int64_t>{450, 500});
    CHECK(dir.newest_valid(&warnings) == dir.path_for_step(450));  // `latest` decides
  }
}

TEST_CASE("checkpoint directory: list ignores temporaries and other files", "[checkpoint]") {
  ScratchDir run("ckdir-list");
  CheckpointDirectory dir(run.path());
  dir.save(7, at_step(7), 0, -1);
  for (const char* name : {"step-00000009.h5.tmp-123", "step-9.h5", "step-000000009.h5", "notes.txt",
                           "step-00000009.h5.bak", "latest.tmp-5"}) {
    std::ofstream(dir.dir() + "/" + name) << "x";
  }
  CHECK(dir.list() == std::vector<std::pair<int64_t, std::string>>{{7, dir.path_for_step(7)}});
  CHECK(dir.newest_valid(nullptr) == dir.path_for_step(7));
}

TEST_CASE("checkpoint directory: a damaged newest file is skipped with a warning", "[checkpoint]") {
  ScratchDir run("ckdir-skip");
  CheckpointDirectory dir(run.path());
  dir.save(100, at_step(100), 5, -1);
  dir.save(200, at_step(200), 5, -1);
  const CheckpointContents c200 = at_step(200);
  const std::vector<char> head = rotor::test::head_bytes(c200.tensors.at("model/head.weight"), 8);
  REQUIRE(rotor::test::flip_byte_in(dir.path_for_step(200), head.data(), head.size(), 3));

  std::vector<std::string> warnings;
  CHECK(dir.newest_valid(&warnings) == dir.path_for_step(100));
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::StartsWith("skipping " + dir.path_for_step(200) +
                                            ": whole-file checksum mismatch (file damaged; computed "));

  SECTION("a garbled latest pointer falls back to the step files") {
    std::ofstream(dir.dir() + "/latest") << "../../etc/passwd\n";
    warnings.clear();
    CHECK(dir.newest_valid(&warnings) == dir.path_for_step(100));
    REQUIRE(warnings.size() == 2);
    CHECK_THAT(warnings[0], Catch::StartsWith("skipping " + dir.dir() + "/latest: '../../etc/passwd' is not"));
    CHECK_THAT(warnings[1], Catch::StartsWith("skipping " + dir.path_for_step(200)));
  }
  SECTION("latest naming a deleted file") {
    std::filesystem::remove(dir.path_for_step(200));
    warnings.clear();
    CHECK(dir.newest_valid(&warnings) == dir.path_for_step(100));
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == "skipping " + dir.path_for_step(200) + ": cannot open: No such file or directory");
  }
}

TEST_CASE("checkpoint directory: a crash during a save keeps the previous checkpoint", "[checkpoint]") {
  ScratchDir run("ckdir-crash");
  CheckpointDirectory dir(run.path());
  dir.save(100, at_step(100), 1, -1);
  dir.save(200, at_step(200), 1, -1);
  REQUIRE(steps(dir) == std::vector<int64_t>{200});
  auto save_300 = [&] { dir.save(300, at_step(300), 1, -1); };

  SECTION("while the temporary is half written") {
    crash_during(save_300, "temp-partial", "step-00000300.h5");
    CHECK(temporaries(dir.dir()).size() == 1);
  }
  SECTION("after the temporary is synced, before the rename") {
    crash_during(save_300, "before-rename", "step-00000300.h5");
    const std::vector<std::string> temps = temporaries(dir.dir());
    REQUIRE(temps.size() == 1);
    CHECK(is_valid_checkpoint(temps[0]));  // complete, but never committed
  }
  // Either way: step 200 untouched and still the newest, nothing pruned early.
  CHECK(steps(dir) == std::vector<int64_t>{200});
  CHECK(slurp(dir.dir() + "/latest") == "step-00000200.h5\n");
  std::vector<std::string> warnings;
  CHECK(dir.newest_valid(&warnings) == dir.path_for_step(200));
  CHECK(warnings.empty());
  CHECK(step_in(dir.path_for_step(200)) == 200);

  // The next save sweeps the dead writer's temporary and prunes as usual.
  dir.save(300, at_step(300), 1, -1);
  CHECK(temporaries(dir.dir()).empty());
  CHECK(steps(dir) == std::vector<int64_t>{300});
}

TEST_CASE("checkpoint directory: a crash before latest moves keeps the old pointer valid", "[checkpoint]") {
  ScratchDir run("ckdir-crash-latest");
  CheckpointDirectory dir(run.path());
  dir.save(100, at_step(100), 1, -1);
  crash_during([&] { dir.save(200, at_step(200), 1, -1); }, "before-rename", "/latest");
  // The new file is committed but not yet pointed to and nothing was pruned.
  CHECK(steps(dir) == std::vector<int64_t>{100, 200});
  CHECK(is_valid_checkpoint(dir.path_for_step(200)));
  CHECK(slurp(dir.dir() + "/latest") == "step-00000100.h5\n");
  CHECK(dir.newest_valid(nullptr) == dir.path_for_step(100));
}

// A kill in each window of a save (step file, `latest`, `best`, pruning), then
// what a resumed run does: point_at with the newest checkpoint's own records.
TEST_CASE("checkpoint directory: a kill inside a save is finished from the records", "[checkpoint]") {
  ScratchDir run("ckdir-kill-windows");
  CheckpointDirectory dir(run.path());
  dir.save(100, at_step(100, 100), 1, 100);
  dir.save(200, at_step(200, 100), 1, 100);
  auto save_300 = [&] { dir.save(300, at_step(300, 300), 1, 300); };
  int64_t newest_step = 300;
  std::vector<std::string> warnings;

  SECTION("before latest moves: step 200 stays the newest, step 100 its best") {
    crash_during(save_300, "before-rename", "/latest");
    newest_step = 200;
    CHECK(temporaries(dir.dir()).size() == 1);
    CHECK(resolve(run.path(), &warnings).path == dir.path_for_step(100));
  }
  SECTION("before best moves: the records name step 300 on open, and a resume repoints best") {
    crash_during(save_300, "before-rename", "/best");
    CHECK(slurp(dir.dir() + "/best") == "step-00000100.h5\n");
    CHECK(resolve(run.path(), &warnings).path == dir.path_for_step(300));
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::StartsWith(dir.dir() + "/best does not name step-00000300.h5"));
    warnings.clear();
  }
  SECTION("before pruning") {
    crash_during(save_300, "before-prune", "/checkpoints");
    CHECK(steps(dir) == std::vector<int64_t>{100, 200, 300});
  }

  const std::string newest = *dir.newest_valid(&warnings);
  REQUIRE(step_in(newest) == newest_step);
  dir.point_at(step_in(newest), best_in(newest), 1);
  const int64_t best = best_in(newest);
  CHECK(slurp(dir.dir() + "/latest") == fmt::format("step-{:08}.h5\n", newest_step));
  CHECK(slurp(dir.dir() + "/best") == fmt::format("step-{:08}.h5\n", best));
  CHECK(temporaries(dir.dir()).empty());
  CHECK(resolve(run.path(), &warnings).path == dir.path_for_step(best));
  CHECK(warnings.empty());
  // Kept: the newest and its best, and an uncommitted step 300 that a resume overwrites.
  for (const auto& [step, path] : dir.list()) CHECK((step == newest_step || step == best || step == 300));
}

TEST_CASE("resolve_checkpoint: a run directory means its best checkpoint", "[checkpoint]") {
  ScratchDir run("ckdir-resolve");
  CheckpointDirectory dir(run.path());
  dir.save(100, at_step(100), 0, -1);
  std::vector<std::string> warnings;

  SECTION("no evaluation ran: the newest, and says so") {
    const ResolvedCheckpoint r = resolve(run.path(), &warnings);
    CHECK(r.path == dir.path_for_step(100));
    CHECK_THAT(r.how, Catch::Contains("no evaluation ran"));
  }
  dir.save(200, at_step(200, 200), 0, /*best_step=*/200);
  dir.save(300, at_step(300, 200), 0, /*best_step=*/200);
  SECTION("the run directory or its checkpoints folder: best") {
    for (const std::string& given : {run.path(), dir.dir()}) {
      const ResolvedCheckpoint r = resolve(given, &warnings);
      CHECK(r.path == dir.path_for_step(200));
      CHECK(r.how == "best on validation");
    }
  }
  SECTION("the pointers by name") {
    CHECK(resolve(dir.dir() + "/best", &warnings).path == dir.path_for_step(200));
    CHECK(resolve(dir.dir() + "/latest", &warnings).path == dir.path_for_step(300));
    const ResolvedCheckpoint file = resolve(dir.path_for_step(100), &warnings);
    CHECK(file.path == dir.path_for_step(100));
    CHECK(file.how.empty());
  }
  SECTION("a damaged best is an error, not a silent fallback to another checkpoint") {
    std::filesystem::remove(dir.path_for_step(200));
    CHECK_THROWS_WITH(resolve(run.path(), &warnings),
                      Catch::Contains("best names " + dir.path_for_step(200)) && Catch::Contains("/latest instead"));
  }
  SECTION("a garbled best pointer is named, and the records decide") {
    std::ofstream(dir.dir() + "/best") << "x.h5\n";
    CHECK(resolve(run.path(), &warnings).path == dir.path_for_step(200));
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::StartsWith(dir.dir() + "/best does not name step-00000200.h5, which " +
                                              dir.path_for_step(300) + " records as the best"));
    warnings.clear();
  }
  CHECK(warnings.empty());
}

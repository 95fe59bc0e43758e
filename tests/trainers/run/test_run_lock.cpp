// One process per run directory: RUN/.lock held with flock.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <optional>

#include "tests/storage/checkpoint_test_support.h"
#include "trainers/run/run_lock.h"

using namespace rotor;
using rotor::test::ScratchDir;

TEST_CASE("run lock: a second holder is refused until the first releases", "[run_lock]") {
  ScratchDir run("lock-inproc");
  const std::string dir = run / "run";  // created by the lock
  std::optional<RunLock> first;
  first.emplace(dir);
  std::ifstream pid_file(dir + "/.lock");
  long pid = 0;
  pid_file >> pid;
  CHECK(pid == static_cast<long>(::getpid()));

  const std::string expected =
      "run directory " + dir + " is in use by another rotor process (pid " + std::to_string(::getpid()) + ")";
  CHECK_THROWS_AS(RunLock(dir), RunInUseError);
  CHECK_THROWS_WITH(RunLock(dir), Catch::StartsWith(expected));

  first.reset();
  CHECK_NOTHROW(RunLock(dir));
}

TEST_CASE("run lock: another process holding the directory is named", "[run_lock]") {
  ScratchDir run("lock-fork");
  int ready[2], done[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(done) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    char c = 1;
    try {
      new RunLock(run.path());  // held until the process ends, never released by hand
    } catch (...) {
      ::_exit(2);
    }
    (void)!::write(ready[1], &c, 1);
    (void)!::read(done[0], &c, 1);  // until the parent has looked
    ::_exit(0);
  }
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  CHECK_THROWS_WITH(RunLock(run.path()), Catch::Contains("run directory " + run.path() + " is in use") &&
                                             Catch::Contains("(pid " + std::to_string(child) + ")"));
  REQUIRE(::write(done[1], &c, 1) == 1);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WEXITSTATUS(status) == 0);
  CHECK_NOTHROW(RunLock(run.path()));  // the kernel released it with the process
}

#pragma once
// torch.matmul through a persistent /usr/bin/python3 child (torch_matmul.py --serve).
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/gemm_bench.h"

extern char** environ;

namespace rotor::bench {

class TorchClient {
 public:
  bool start(const std::string& python, const std::string& script) {
    if (access(python.c_str(), X_OK) != 0) return fail(python + " not found");
    if (access(script.c_str(), R_OK) != 0) return fail(script + " not found");
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) return fail("pipe() failed");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from_child[1], 1);
    posix_spawn_file_actions_addclose(&fa, to_child[1]);
    posix_spawn_file_actions_addclose(&fa, from_child[0]);
    std::vector<std::string> args = {python, "-u", script, "--serve"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pid_, python.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(to_child[0]);
    close(from_child[1]);
    if (rc != 0) {
      close(to_child[1]);
      close(from_child[0]);
      pid_ = -1;
      return fail("cannot start " + python + ": " + std::strerror(rc));
    }
    in_ = fdopen(to_child[1], "w");
    out_ = fdopen(from_child[0], "r");
    const std::string hello = read_line();
    if (hello.find("\"ok\": true") == std::string::npos) {
      std::string err = hello.empty() ? "python child exited without a reply" : hello;
      stop();
      return fail("torch unavailable (" + err + ")");
    }
    info_ = hello;
    ok_ = true;
    return true;
  }

  // Mean seconds per call over `inner` calls (after `warmup` untimed calls); NAN on error.
  double time(const Shape& s, int threads, int inner, int warmup) {
    if (!ok_) return NAN;
    std::fprintf(in_,
                 "{\"ta\": %d, \"tb\": %d, \"M\": %lld, \"N\": %lld, \"K\": %lld, \"threads\": %d, \"inner\": %d, "
                 "\"warmup\": %d}\n",
                 int(s.ta), int(s.tb), (long long)s.M, (long long)s.N, (long long)s.K, threads, inner, warmup);
    std::fflush(in_);
    const std::string r = read_line();
    const auto k = r.find("\"sec\":");
    if (k == std::string::npos) {
      note_ = "torch child failed: " + (r.empty() ? std::string("no reply") : r);
      stop();
      return NAN;
    }
    return std::strtod(r.c_str() + k + 6, nullptr);
  }

  void stop() {
    if (in_) {
      std::fputs("quit\n", in_);
      std::fclose(in_);
      in_ = nullptr;
    }
    if (out_) {
      std::fclose(out_);
      out_ = nullptr;
    }
    if (pid_ > 0) {
      int st;
      waitpid(pid_, &st, 0);
      pid_ = -1;
    }
    ok_ = false;
  }
  ~TorchClient() { stop(); }

  bool ok() const { return ok_; }
  const std::string& note() const { return note_; }
  const std::string& info() const { return info_; }

 private:
  bool fail(const std::string& why) {
    note_ = why;
    ok_ = false;
    return false;
  }
  std::string read_line() {
    std::string s;
    if (!out_) return s;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, out_)) {
      s += buf;
      if (!s.empty() && s.back() == '\n') break;
    }
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }
  pid_t pid_ = -1;
  FILE* in_ = nullptr;
  FILE* out_ = nullptr;
  bool ok_ = false;
  std::string note_, info_;
};

}  // namespace rotor::bench

#include "storage/checkpoint_fs.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "storage/checkpoint_error.h"

namespace rotor::checkpoint_fs {
namespace {

checkpoint_testing::CrashHook g_crash_hook = nullptr;

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw CheckpointError(path + ": " + what + ": " + std::strerror(err));
}

void fsync_path(const std::string& path, int flags, bool is_directory) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open to sync", errno);
  int err = 0;
  if (::fsync(fd) != 0) err = errno;
  ::close(fd);
  // Some file systems cannot sync a directory (EINVAL); the rename is still atomic.
  if (err != 0 && !(is_directory && err == EINVAL)) fail(path, "fsync failed", err);
}

}  // namespace

std::string temp_path_for(const std::string& path) {
  return path + ".tmp-" + std::to_string(static_cast<long>(::getpid()));
}

bool is_temp_name(const std::string& name, long* pid) {
  const size_t at = name.rfind(".tmp-");
  if (at == std::string::npos || at + 5 == name.size()) return false;
  long value = 0;
  for (size_t i = at + 5; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9' || value > 1'000'000'000) return false;
    value = value * 10 + (name[i] - '0');
  }
  if (pid != nullptr) *pid = value;
  return true;
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

void commit(const std::string& temp, const std::string& final_path) {
  try {
    fsync_path(temp, O_RDONLY, false);
  } catch (...) {
    std::remove(temp.c_str());
    throw;
  }
  crash_point("before-rename", final_path);
  if (std::rename(temp.c_str(), final_path.c_str()) != 0) {
    const int err = errno;
    std::remove(temp.c_str());
    fail(final_path, "cannot rename " + temp + " to it", err);
  }
  fsync_path(directory_of(final_path), O_RDONLY | O_DIRECTORY, true);
}

void write_file_atomically(const std::string& path, const std::string& bytes) {
  const std::string temp = temp_path_for(path);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(temp, "cannot create", errno);
  size_t done = 0;
  bool halfway = false;
  while (done < bytes.size()) {
    if (!halfway && done >= bytes.size() / 2) {
      halfway = true;
      crash_point("temp-partial", path);
    }
    const size_t chunk = halfway ? bytes.size() - done : bytes.size() / 2 - done;
    const ssize_t n = ::write(fd, bytes.data() + done, chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      std::remove(temp.c_str());
      fail(temp, "write failed", err);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    std::remove(temp.c_str());
    fail(temp, "write failed", err);
  }
  commit(temp, path);
}

void crash_point(const char* stage, const std::string& final_path) {
  if (g_crash_hook != nullptr) g_crash_hook(stage, final_path);
  // Lets a test outside the process kill it mid-write (tests/chaos).
  static const long pause_ms = [] {
    const char* v = std::getenv("ROTOR_TEST_WRITE_PAUSE_MS");
    return v != nullptr ? std::strtol(v, nullptr, 10) : 0L;
  }();
  if (pause_ms > 0 && std::strcmp(stage, "temp-partial") == 0) ::usleep(static_cast<useconds_t>(pause_ms) * 1000);
}

}  // namespace rotor::checkpoint_fs

namespace rotor::checkpoint_testing {

void set_crash_hook(CrashHook hook) { checkpoint_fs::g_crash_hook = hook; }

}  // namespace rotor::checkpoint_testing

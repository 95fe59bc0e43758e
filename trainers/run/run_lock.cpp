#include "trainers/run/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace rotor {
namespace {

std::string read_holder_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string s = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
  return digits ? s : "unknown";
}

}  // namespace

RunLock::RunLock(const std::string& run_dir, const std::string& what) {
  std::error_code ec;
  std::filesystem::create_directories(run_dir, ec);
  if (ec) throw Error(what + " " + run_dir + ": cannot create it: " + ec.message());
  const std::string path = run_dir + "/.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(path + ": cannot open the lock file: " + std::strerror(errno));
  int status;
  do {
    status = ::flock(fd_, LOCK_EX | LOCK_NB);
  } while (status != 0 && errno == EINTR);
  if (status != 0) {
    const int err = errno;
    const std::string holder = err == EWOULDBLOCK ? read_holder_pid(fd_) : "";
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK) {
      throw RunInUseError(what + " " + run_dir + " is in use by another rotor process (pid " + holder +
                          "); wait for it to finish, stop it, or choose another output directory");
    }
    throw Error(path + ": cannot lock the " + what + ": " + std::strerror(err));
  }
  const std::string pid = std::to_string(static_cast<long>(::getpid())) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    // The lock itself is held; the pid is only for the message of a rival.
  }
}

std::optional<std::string> lock_holder(const std::string& run_dir) {
  const std::string path = run_dir + "/.lock";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;  // never trained here by rotor, so not training now
  int status;
  do {
    status = ::flock(fd, LOCK_SH | LOCK_NB);
  } while (status != 0 && errno == EINTR);
  std::optional<std::string> holder;
  if (status != 0 && errno == EWOULDBLOCK) holder = read_holder_pid(fd);
  ::close(fd);  // drops the shared lock, if taken
  return holder;
}

RunLock::~RunLock() {
  if (fd_ >= 0) {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
}

}  // namespace rotor

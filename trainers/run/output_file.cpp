#include "trainers/run/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "engine/error.h"
#include "storage/checkpoint_error.h"
#include "storage/checkpoint_fs.h"

namespace rotor {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void cannot_write(const std::string& path, int err) {
  throw Error(path + ": cannot write: " + std::strerror(err));
}

// Writes all of `text` to fd; returns 0 or the errno of the failure.
int write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += static_cast<size_t>(n);
  }
  return 0;
}

// A device or pipe cannot be replaced by a rename (nor should it be, as root).
void write_in_place(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) cannot_write(path, errno);
  int err = write_all(fd, text);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) cannot_write(path, err);
}

}  // namespace

void write_output_file(const std::string& path, const std::string& text) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    if (fs::is_directory(status)) cannot_write(path, EISDIR);
    write_in_place(path, text);
    return;
  }
  const std::string temp = checkpoint_fs::temp_path_for(path);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) cannot_write(path, errno);
  int err = write_all(fd, text);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    std::remove(temp.c_str());
    cannot_write(path, err);
  }
  try {
    checkpoint_fs::commit(temp, path);  // fsync, rename, fsync of the folder; removes the temporary on failure
  } catch (const CheckpointError& e) {
    throw Error(path + ": cannot write: " + e.what());
  }
}

}  // namespace rotor

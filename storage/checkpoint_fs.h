#pragma once
// File-system steps of an atomic write: temporary names next to the target,
// fsync, rename, fsync of the directory. Failures throw CheckpointError
// naming the file.
#include <string>

namespace rotor::checkpoint_fs {

// "<path>.tmp-<pid of this process>": same directory, so rename is atomic.
std::string temp_path_for(const std::string& path);
// True for names written by temp_path_for; *pid gets the writer's pid.
bool is_temp_name(const std::string& name, long* pid = nullptr);

// Makes the finished file `temp` durable and gives it the name `final_path`:
// fsync(temp), rename(temp, final_path), fsync(directory).
void commit(const std::string& temp, const std::string& final_path);

// Writes `bytes` to `path` through a temporary file and commit().
void write_file_atomically(const std::string& path, const std::string& bytes);

// "a/b/c.h5" -> "a/b"; "c.h5" -> ".".
std::string directory_of(const std::string& path);

// Runs `stage`'s crash hook if a test installed one (see checkpoint_testing).
void crash_point(const char* stage, const std::string& final_path);

}  // namespace rotor::checkpoint_fs

namespace rotor::checkpoint_testing {

// Test-only: called at the named points of every atomic write, with the final
// path. Stages: "temp-partial" (the temporary holds the first half of the
// bytes) and "before-rename" (temporary closed and fsynced, not yet renamed);
// and once per CheckpointDirectory::point_at, with the checkpoint folder,
// "before-prune" (both pointers written, no file pruned yet).
// A test forks, installs a hook that _exit()s, and so leaves what a crash
// would. From outside the process, the environment variable
// ROTOR_TEST_WRITE_PAUSE_MS=N pauses N ms at "temp-partial", so that a test
// can kill it there.
using CrashHook = void (*)(const char* stage, const std::string& final_path);
void set_crash_hook(CrashHook hook);  // nullptr removes it

}  // namespace rotor::checkpoint_testing

#pragma once
// The readers take paths: each fuzzer input is written to one file per
// process (in /dev/shm when there is one, to spare the disk), rewritten for
// every input.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace rotor::fuzz {

inline std::string input_file(const uint8_t* data, size_t size, const std::string& extension) {
  static const std::string dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  const std::string path = dir + "/rotor-fuzz-" + std::to_string(::getpid()) + extension;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) __builtin_trap();  // the harness itself is broken
  if (size > 0 && std::fwrite(data, 1, size, f) != size) __builtin_trap();
  std::fclose(f);
  return path;
}

}  // namespace rotor::fuzz

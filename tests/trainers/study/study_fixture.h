#pragma once
// A tiny study for the compare tests: the tiny run config of run_fixture.h
// as the base, written into a fresh directory with a spec next to it.
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/trainers/training/run_fixture.h"

namespace rotor::test {

// Writes DIR/study.yaml (base: the tiny run config) whose body is `body`
// (seeds, variants, evaluation ...) and returns its path.
inline std::string tiny_study_spec(const std::filesystem::path& dir, const std::string& body) {
  tiny_run_config(dir);
  const std::string path = (dir / "study.yaml").string();
  std::ofstream(path) << "base: tiny.yaml\n" << body;
  return path;
}

}  // namespace rotor::test

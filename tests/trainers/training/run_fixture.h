#pragma once
// A tiny, fast training run for trainer tests: listops-easy shrunk to a few
// hundred documents and a one-layer model, in a fresh temporary directory.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rotor::test {

// CTest runs each test case as its own process, two at a time: the process id
// keeps cases that share a helper (and a name) out of each other's way.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("rotor-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Writes the config into `dir` and returns its path.
inline std::string tiny_run_config(const std::filesystem::path& dir, const std::string& extra = "") {
  const std::string path = (dir / "tiny.yaml").string();
  std::ofstream(path) << "run:\n  seed: 7\n  progress: none\n  log_every: 2\n"
                      << "model:\n  d_model: 16\n  layers: 1\n  heads: 2\n  d_ff: 32\n  dropout: 0.1\n"
                      << "  attention_dropout: 0.1\n  position:\n    type: rope\n"
                      << "data:\n  task: listops-easy\n  train_size: 160\n  eval_size: 48\n  max_len: 32\n"
                      << "  batch_size: 16\n  data_dir: " << (dir / "data").string() << "\n"
                      << "train:\n  lr: 3.0e-3\n  warmup_steps: 4\n  max_steps: 24\n  eval_every: 8\n"
                      << "  checkpoint_every: 4\n  grad_accumulation: 2\n  keep_last: 10\n"
                      << extra;
  return path;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// metrics.jsonl without the wall-clock fields, which legitimately differ.
inline std::vector<std::string> deterministic_metrics(const std::filesystem::path& run_dir) {
  std::vector<std::string> lines;
  std::ifstream in(run_dir / "metrics.jsonl");
  for (std::string line; std::getline(in, line);) {
    nlohmann::ordered_json event = nlohmann::ordered_json::parse(line);
    event.erase("tokens_per_s");
    event.erase("elapsed_s");
    lines.push_back(event.dump());
  }
  return lines;
}

}  // namespace rotor::test

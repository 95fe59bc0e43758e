// rotor_spirals_demo: trains a 2-64-64-2 tanh MLP with AdamW on two
// interleaved spirals and reports loss and accuracy as it learns. The engine's
// stand-in "main job" until the trainer exists.
#include <chrono>
#include <cstdio>

#include "engine/error.h"
#include "engine/parallel.h"
#include "examples/two_spirals.h"

namespace {

constexpr int64_t kReportEvery = 50;

int run() {
  rotor::examples::SpiralsTraining training;
  const rotor::examples::SpiralsConfig& c = training.config();
  std::printf("rotor spirals demo\n");
  std::printf("  data      %lld points on two spirals of %.2f turns (noise %.2f)\n",
              static_cast<long long>(training.num_points()), c.turns, c.noise);
  std::printf("  model     MLP 2-%lld-%lld-2, tanh, %lld parameters\n", static_cast<long long>(c.hidden),
              static_cast<long long>(c.hidden), static_cast<long long>(training.num_parameters()));
  std::printf(
      "  training  AdamW, lr %.3g with %lld warm-up steps and cosine decay to %.3g over %lld steps, %d threads\n\n",
      c.lr, static_cast<long long>(c.warmup_steps), c.min_lr, static_cast<long long>(c.steps), rotor::num_threads());
  std::printf("  %6s  %9s  %8s  %8s\n", "step", "lr", "loss", "accuracy");

  const auto start = std::chrono::steady_clock::now();
  while (!training.done()) {
    const double loss = training.step();
    const int64_t t = training.steps_taken();
    if (t == 1 || t % kReportEvery == 0)
      std::printf("  %6lld  %9.2e  %8.4f  %7.1f%%\n", static_cast<long long>(t), training.lr(), loss,
                  100.0 * training.accuracy());
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const double accuracy = training.accuracy();
  const bool separated = accuracy >= 0.98;
  std::printf("\nfinal training accuracy %.1f%% after %lld steps in %.1f s: %s\n", 100.0 * accuracy,
              static_cast<long long>(training.steps_taken()), seconds,
              separated ? "the spirals are separated" : "NOT separated (expected >= 98%)");
  return separated ? 0 : 1;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const rotor::Error& e) {
    std::fprintf(stderr, "rotor_spirals_demo: %s\n", e.what());
    return 2;
  }
}

#include "trainers/training/signals.h"

#include <unistd.h>

#include <csignal>
#include <cstring>

namespace rotor {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_stop_signal(int sig) {
  if (g_signal == SIGINT && sig == SIGINT) _exit(130);  // second Ctrl-C: leave now
  g_signal = sig;
}

}  // namespace

void install_stop_handlers() {
  g_signal = 0;
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGHUP, on_stop_signal);
}

void restore_default_handlers() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGHUP, SIG_DFL);
}

int stop_requested() { return g_signal; }

std::string signal_name(int sig) {
  const char* abbreviation = sigabbrev_np(sig);  // glibc >= 2.32
  return abbreviation != nullptr ? "SIG" + std::string(abbreviation) : "signal " + std::to_string(sig);
}

}  // namespace rotor

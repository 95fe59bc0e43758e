#pragma once
// SIGINT/SIGTERM/SIGHUP handling for training. The handler only records the
// signal (SEI CERT SIG30-C); the loop checks stop_requested() at step
// boundaries, saves a checkpoint and exits 128 + the signal (130, 143, 129).
// A hangup (closed terminal or SSH session) stops like SIGTERM. A second
// SIGINT exits at once (the last committed checkpoint is intact: checkpoints
// are written atomically).
#include <string>

namespace rotor {

void install_stop_handlers();
void restore_default_handlers();
// 0 when no stop was requested, else the signal number.
int stop_requested();

// "SIGTERM", "SIGKILL", ...: the signal's abbreviation, or "signal N".
std::string signal_name(int sig);

}  // namespace rotor

#pragma once
// SIGINT/SIGTERM handling for training. The handler only records the signal
// (SEI CERT SIG30-C); the loop checks stop_requested() at step boundaries,
// saves a checkpoint and exits 130/143. A second SIGINT exits at once (the
// last committed checkpoint is intact: checkpoints are written atomically).
namespace rotor {

void install_stop_handlers();
void restore_default_handlers();
// 0 when no stop was requested, else the signal number.
int stop_requested();

}  // namespace rotor

#pragma once
// Loading a run configuration: YAML files with `extends: base.yaml`, then
// `--set key.path=value` overrides, strictly checked against the schema.
// Every error names the file (or --set), the line and the key, says what was
// expected and suggests the closest valid key.
#include <string>
#include <vector>

#include "trainers/config/config.h"

namespace rotor {

// Also holds the config to the machine it runs on (run.threads at most 4 x its
// cores).
Config load_config(const std::string& path, const std::vector<std::string>& overrides = {});
// Parses YAML text as if it were a file called `origin` (checkpoints store the
// resolved config as text). Not held to this machine: it may come from another.
Config parse_config_text(const std::string& yaml, const std::string& origin,
                         const std::vector<std::string>& overrides = {});

// A checkpoint's stored config (a resolved config, as text; upgraded first,
// trainers/config/stored_config_upgrade.h), its YAML read once and built twice: as the run was trained, and with
// `overrides` applied (e.g. rope scaling for evaluation). Not held to this machine. Errors of the stored text itself (a
// damaged or forged checkpoint) are thrown as StoredConfigError, those of an override as ConfigError.
struct StoredConfig {
  Config trained;
  Config config;  // with the overrides; the trained config when there are none
};
struct StoredConfigError : ConfigError {
  using ConfigError::ConfigError;
};
StoredConfig parse_stored_config(const std::string& yaml, const std::string& origin,
                                 const std::vector<std::string>& overrides);

// A config rotor recorded (a run directory's config.yaml), read as a
// checkpoint's stored config is.
Config load_recorded_config(const std::string& path);

// The rules that tie several keys together (single keys are checked against
// their schema row while loading). Throws ConfigError "<key>: <what was expected>".
void validate(const Config& config);

// Throws ConfigError "train.warmup_steps: ..." when the warm-up is longer than
// the run of `run_steps` optimizer steps, so the learning rate would never
// decay. validate() checks it against train.max_steps; the trainer again once
// it knows the steps per epoch (`steps_per_epoch`; 0: not known yet).
void check_warmup_fits(const TrainConfig& train, int64_t run_steps, int64_t steps_per_epoch);

// Every key the run reads (is_read_by) with its value, as YAML that
// parse_config_text() reads back to the same Config.
std::string dump_config(const Config& config);

// Keys whose values differ between two configs, among those either reads.
std::vector<std::string> differing_keys(const Config& a, const Config& b);

}  // namespace rotor

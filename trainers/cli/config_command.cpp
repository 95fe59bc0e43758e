// `rotor config`: the fully resolved config of a file, or the reference of
// every key.
#include <fmt/core.h>

#include "trainers/cli/command.h"
#include "trainers/config/config_loader.h"
#include "trainers/config/config_schema.h"

namespace rotor {
namespace {

struct ConfigRequest {
  std::string config_path;
  std::vector<std::string> overrides;
  bool reference = false;
  bool markdown = false;
};

int config_command(const ConfigRequest& req) {
  if (!req.reference && req.config_path.empty()) {
    fmt::print(stderr, "rotor config: give a CONFIG file or --reference\n");
    return 2;
  }
  if (req.reference) {
    fmt::print("{}", config_reference(req.markdown));
    return 0;
  }
  fmt::print("{}", dump_config(load_config(req.config_path, req.overrides)));
  return 0;
}

}  // namespace

Command add_config_command(CLI::App& app) {
  auto config = std::make_shared<ConfigRequest>();
  auto* c = app.add_subcommand("config", "Print the fully resolved config, or the reference of every key");
  c->add_option("config", config->config_path, "YAML config file")->check(CLI::ExistingFile);
  c->add_option("--set", config->overrides, "Override a config key (repeatable)");
  c->add_flag("--reference", config->reference, "Every key with type, default and meaning");
  c->add_flag("--markdown", config->markdown, "With --reference: as Markdown tables");
  return {c, [config] { return config_command(*config); }};
}

}  // namespace rotor

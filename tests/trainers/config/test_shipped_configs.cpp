// Every config and study spec shipped in configs/ loads and validates: a
// shipped file that fails a rule (e.g. a warm-up longer than its run) is a
// bug in the file, found here rather than by a user.
#include <catch2/catch.hpp>

#include <filesystem>

#include "trainers/config/config_loader.h"
#include "trainers/study/study_spec.h"

using namespace rotor;
namespace fs = std::filesystem;

TEST_CASE("shipped configs and study specs load and validate", "[config]") {
  const fs::path configs = fs::path(ROTOR_SOURCE_DIR) / "configs";
  int checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(configs)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string path = entry.path().string();
    INFO(path);
    // Study specs sit in configs/compare/ (and its folders, bases/ aside); everything else is a run config.
    const fs::path folder = entry.path().parent_path();
    if (folder == configs / "compare" || (folder.parent_path() == configs / "compare" && folder.filename() != "bases"))
      CHECK_NOTHROW(parse_study_suite(path));
    else
      CHECK_NOTHROW(load_config(path));
    ++checked;
  }
  CHECK(checked >= 50);
}

TEST_CASE("a warm-up longer than the run is a config error naming both", "[config]") {
  TrainConfig t;
  t.warmup_steps = 200;
  t.max_steps = 190;
  CHECK_THROWS_WITH(check_warmup_fits(t, 190, 0),
                    "train.warmup_steps: 200 warm-up steps are longer than the whole run of 190 steps "
                    "(train.max_steps), so the learning rate would never decay; set train.warmup_steps to about a "
                    "tenth of the run (19)");
  t.max_steps = 0;
  t.max_epochs = 10;  // the shipped SOTU study before its fix
  CHECK_THROWS_WITH(check_warmup_fits(t, 120, 12),
                    "train.warmup_steps: 200 warm-up steps are longer than the whole run of 120 steps "
                    "(train.max_epochs 10 x 12 steps an epoch), so the learning rate would never decay; set "
                    "train.warmup_steps to about a tenth of the run (12)");
  t.warmup_steps = 120;  // warm-up over the whole run: allowed, as in the schedule
  CHECK_NOTHROW(check_warmup_fits(t, 120, 12));
}

// Positions from a data file (data.positions_field) in whole classification
// runs: 0..N-1 in the file is the run without positions, bit for bit (every
// document fits its window: a window cut from inside a longer one keeps the
// document's positions, where the run without them counts from 0); other
// positions train another model, at any number of gradient groups; the config
// refuses randomized positions beside them and objectives that read no JSONL
// documents.
#include <catch2/catch.hpp>

#include <fstream>

#include "tests/trainers/training/run_fixture.h"
#include "trainers/config/config_loader.h"
#include "trainers/training/trainer.h"

using namespace rotor;
using namespace rotor::test;

namespace {

// Texts of 3 to 12 words whose label is the order of two marker words; each document's
// positions by `rule` (its length n, token t).
void write_split(const std::filesystem::path& path, int docs, int seed, int (*rule)(int n, int t)) {
  std::ofstream out(path);
  for (int d = 0; d < docs; ++d) {
    const int n = 3 + (d * 7 + seed) % 10, first = (d * 5 + seed) % n, second = (first + 1 + d % (n - 1)) % n;
    std::string text, positions;
    for (int t = 0; t < n; ++t) {
      text += (t ? " " : "") + std::string(t == first ? "x" : t == second ? "y" : "w" + std::to_string((d + t) % 6));
      positions += (t ? ", " : "") + std::to_string(rule(n, t));
    }
    out << "{\"text\": \"" << text << "\", \"label\": \"" << (first < second ? "xy" : "yx") << "\", \"positions\": ["
        << positions << "]}\n";
  }
}

int slot(int, int t) { return t; }
int reversed(int n, int t) { return n - 1 - t; }

}  // namespace

TEST_CASE("a classification run reads positions from its data file", "[positions][slow]") {
  const auto dir = fresh_dir("file-positions");
  const std::string config = (dir / "order.yaml").string();
  std::ofstream(config) << "run: {name: order, seed: 5, progress: none, log_every: 2}\n"
                        << "model: {d_model: 16, layers: 1, heads: 2, d_ff: 32, dropout: 0.0, attention_dropout: 0.0,"
                        << " pooling: mean, position: {type: rope}}\n"
                        << "data: {tokenizer: vocab, max_len: 12, batch_size: 8, cache: false}\n"
                        << "train: {lr: 3.0e-3, max_steps: 6, eval_every: 6, warmup_steps: 1}\n";
  auto losses = [&](int (*rule)(int, int), const std::string& field, int groups) {
    const auto data = dir / (field + std::to_string(rule == slot) + std::to_string(groups));
    std::filesystem::create_directories(data);
    write_split(data / "train.jsonl", 48, 1, rule);
    write_split(data / "val.jsonl", 16, 2, rule);
    write_split(data / "test.jsonl", 16, 3, rule);
    const std::string out = (data / "run").string();
    REQUIRE(
        train({config,
               {"data.train_path=" + (data / "train.jsonl").string(), "data.val_path=" + (data / "val.jsonl").string(),
                "data.test_path=" + (data / "test.jsonl").string(),
                "data.positions_field=" + (field.empty() ? "''" : field),
                "train.gradient_groups=" + std::to_string(groups)},
               "",
               out}) == 0);
    return deterministic_metrics(out);  // training and evaluation
  };
  for (const int groups : {1, 2}) {
    INFO(groups << " gradient groups");
    const std::vector<std::string> none = losses(slot, "", groups);
    CHECK(losses(slot, "positions", groups) == none);
    CHECK(losses(reversed, "positions", groups) != none);
  }
}

TEST_CASE("data.positions_field is refused beside randomized positions and for a language model", "[positions]") {
  const auto dir = fresh_dir("file-positions-refused");
  const std::string config = (dir / "c.yaml").string();
  std::ofstream(config) << "run: {name: c}\nmodel: {position: {type: rope, randomized: true}}\n"
                        << "data: {train_path: t.jsonl, positions_field: positions}\n";
  CHECK_THROWS_WITH(load_config(config, {}), Catch::Contains("model.position.randomized: the data gives each token its "
                                                             "position (data.generated.positions: coupled, or "
                                                             "data.positions_field)"));
  std::ofstream(config) << "run: {name: c}\ndata: {train_path: t.txt, positions_field: positions}\n"
                        << "train: {objective: clm}\n";
  CHECK_THROWS_WITH(load_config(config, {}), Catch::Contains("data.positions_field applies to train.objective"));
}

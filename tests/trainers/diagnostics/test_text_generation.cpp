// rotor generate's sampler: greedy continuation is the argmax of the model's
// own teacher-forced logits, a seed gives the same text at 1 and 2 threads,
// and the top-k and temperature rules are sample.py's.
#include <algorithm>
#include <catch2/catch.hpp>

#include "engine/argmax.h"
#include "engine/parallel.h"
#include "tests/trainers/diagnostics/causal_test_model.h"
#include "trainers/diagnostics/text_generation.h"

using namespace rotor;

namespace {

std::unique_ptr<LanguageModel> causal_model(const std::string& encoding) { return test::causal_model(encoding, 11); }

const std::vector<int32_t> kPrompt{40, 41, 42, 43, 44};

}  // namespace

TEST_CASE("generate: greedy tokens are the argmax of the teacher-forced logits", "[diagnostics][generate]") {
  for (const std::string encoding : {"rope", "alibi", "fire"}) {
    INFO(encoding);
    const auto owned = causal_model(encoding);
    const LanguageModel& model = *owned;
    const std::vector<int32_t> added = generate(model, kPrompt, {12, 0.0, 0, 1, 64});
    REQUIRE(added.size() == 12);
    std::vector<int32_t> all = kPrompt;
    all.insert(all.end(), added.begin(), added.end());
    const int64_t n = int64_t(all.size());
    const std::vector<int32_t> lengths{int32_t(n)};
    ForwardContext ctx;
    const std::vector<double> logits = model.logits(ModelInput{all, lengths, 1, n}, ctx).value().to_doubles();
    for (size_t k = 0; k < added.size(); ++k) {
      const size_t slot = kPrompt.size() - 1 + k;  // the slot that predicts token kPrompt.size() + k
      CHECK(argmax(logits.data() + slot * 260, 260) == added[k]);
    }
  }
}

TEST_CASE("generate: a seed gives the same text at 1 and 2 threads", "[diagnostics][generate]") {
  const auto owned = causal_model("rope");
  const LanguageModel& model = *owned;
  const GenerationOptions options{16, 1.0, 0, 5, 8};  // window 8: the context slides
  const int saved = num_threads();
  set_num_threads(1);
  const std::vector<int32_t> one = generate(model, kPrompt, options);
  set_num_threads(2);
  const std::vector<int32_t> two = generate(model, kPrompt, options);
  set_num_threads(saved);
  CHECK(one == two);
  GenerationOptions other = options;
  other.seed = 6;
  CHECK(generate(model, kPrompt, other) != one);
}

TEST_CASE("generate: top-k and temperature choose as sample.py", "[diagnostics][generate]") {
  const std::vector<double> logits{1.0, 3.0, 2.0, 0.5};
  CHECK(choose_token(logits, 0.0, 0, 0.99) == 1);  // greedy ignores the draw
  for (const double u : {0.0, 0.5, 0.999}) CHECK(choose_token(logits, 1.0, 1, u) == 1);
  // top 2 = tokens 1 and 2 with weights e^3 and e^2: u below e^3 / (e^3 + e^2) draws 1, above it 2
  const double split = std::exp(3.0) / (std::exp(3.0) + std::exp(2.0));
  CHECK(choose_token(logits, 1.0, 2, split - 1e-9) == 1);
  CHECK(choose_token(logits, 1.0, 2, split + 1e-9) == 2);
  // a high temperature flattens: u = 0 draws the first token, which top-k 2 excludes
  CHECK(choose_token(logits, 100.0, 0, 0.0) == 0);
  CHECK(choose_token(logits, 100.0, 2, 0.0) == 1);
}

TEST_CASE("generate: a stop token ends the text once added, the same text up to it", "[diagnostics][generate]") {
  const auto owned = causal_model("rope");
  const std::vector<int32_t> full = generate(*owned, kPrompt, {12, 0.0, 0, 1, 64});
  REQUIRE(full.size() == 12);
  GenerationOptions stopping{12, 0.0, 0, 1, 64};
  stopping.stop = full[5];
  const std::vector<int32_t> stopped = generate(*owned, kPrompt, stopping);
  const size_t first = size_t(std::find(full.begin(), full.end(), full[5]) - full.begin());  // its first occurrence
  CHECK(stopped == std::vector<int32_t>(full.begin(), full.begin() + first + 1));
  stopping.stop = 259;  // a token greedy decoding does not reach here: max_new tokens
  REQUIRE(std::find(full.begin(), full.end(), 259) == full.end());
  CHECK(generate(*owned, kPrompt, stopping) == full);
}

// Padding after an answer's end mark (sequence_task.h): the authors score
// binary addition, binary multiplication and stack manipulation only up to and
// including the mark, so the padding gets a query position but no target.
#include "datasets/tasks/sequence_layout.h"
#include "datasets/tasks/sequence_task.h"
#include "helpers.h"

using namespace rotor;

namespace {

SequenceSample draw(const char* task, int64_t n, uint64_t step) {
  const SequenceTask* row = find_sequence_task(task);
  REQUIRE(row != nullptr);
  return row->draw(RandomKey{7, stream_id(task), step}, n);
}

}  // namespace

TEST_CASE("padding_after counts the symbols after the first end mark", "[datasets][sequence][padding]") {
  CHECK(padding_after({"1", "0", "#", "0", "0"}, "#") == 2);
  CHECK(padding_after({"1", "#"}, "#") == 0);
  CHECK(padding_after({"1", "0"}, "#") == 0);
  CHECK(padding_after({"0", "END", "0", "0"}, "END") == 2);
}

TEST_CASE("end-marked tasks pad after their mark and leave the padding unscored", "[datasets][sequence][padding]") {
  for (const char* task : {"binary-addition", "binary-multiplication", "stack-manipulation"}) {
    int64_t padded = 0;
    for (uint64_t step = 0; step < 50; ++step) {
      const SequenceSample s = draw(task, 12, step);
      const char* mark = std::string(task) == "stack-manipulation" ? "END" : "#";
      CHECK(s.padding == padding_after(s.output, mark));
      padded += s.padding > 0;
      const RenderedSample q = render(s, SequenceLayout::queries);
      REQUIRE(q.tokens.size() == s.input.size() + s.output.size());
      for (size_t i = 0; i < s.output.size(); ++i) {
        const bool scored = i + static_cast<size_t>(s.padding) < s.output.size();
        CHECK(q.targets[s.input.size() + i] == (scored ? s.output[i] : ""));
      }
      const RenderedSample a = render(s, SequenceLayout::prompt_answer);
      CHECK(a.tokens.size() == s.input.size() + 1 + s.output.size() - static_cast<size_t>(s.padding));
      CHECK(a.targets.back() == kEndSymbol);
    }
    INFO(task);
    CHECK(padded > 0);  // at n = 12 most answers are shorter than their padded width
  }
}

TEST_CASE("tasks without an end mark have no padding", "[datasets][sequence][padding]") {
  for (const char* task : {"reverse-string", "duplicate-string", "parity-check", "copy"})
    for (uint64_t step = 0; step < 20; ++step) CHECK(draw(task, 9, step).padding == 0);
}

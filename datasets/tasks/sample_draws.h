#pragma once
// How a generated task's sample is drawn: its input from the key's draws
// 0, 1, 2, ... in order, and its output as a pure function of that input (the
// task's answer), so the answer can be checked on hand-written inputs and the
// same key always gives the same sample.
#include <cstdint>
#include <string>

#include "datasets/data_error.h"
#include "datasets/tasks/draws.h"
#include "datasets/tasks/number_symbols.h"
#include "datasets/tasks/sequence_task.h"
#include "engine/random.h"

namespace rotor {

// `count` symbols of integers uniform in [lowest, lowest + size).
inline Symbols draw_numbers(Draws& draws, int64_t count, int64_t lowest, int64_t size) {
  Symbols out;
  for (int64_t i = 0; i < count; ++i) out.push_back(number_symbol(lowest + draws.below(size)));
  return out;
}

using InputDraw = Symbols (*)(Draws& draws, int64_t n);
using Answer = Symbols (*)(const Symbols& input);

// EndMarked: the answer ends with the mark "#" and is padded after it; the
// padding is neither trained nor scored (sequence_task.h).
template <int64_t MinLength, InputDraw draw_input, Answer answer, bool EndMarked = false>
SequenceSample draw_sample(const RandomKey& key, int64_t n) {
  if (n < MinLength) {
    throw DataError("a sequence task defined from length " + std::to_string(MinLength) + " was asked for length " +
                    std::to_string(n));
  }
  Draws draws(key);
  SequenceSample sample;
  sample.input = draw_input(draws, n);
  sample.output = answer(sample.input);
  if (EndMarked) sample.padding = padding_after(sample.output, "#");
  return sample;
}

// A task's row: its shortest length is stated once, for the row and the check.
template <int64_t MinLength, InputDraw draw_input, Answer answer, bool EndMarked = false>
SequenceTask task_row(const char* name, const char* source, TaskLevel level) {
  return {name, source, level, MinLength, draw_sample<MinLength, draw_input, answer, EndMarked>};
}

// `row` with the operator whose operands data.generated.positions: coupled lines up.
inline SequenceTask coupled_at(SequenceTask row, const char* op) {
  row.coupled_operator = op;
  return row;
}

}  // namespace rotor

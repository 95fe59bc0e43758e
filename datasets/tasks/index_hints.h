#pragma once
// Index hints (data.generated.index_hints: K), a data format of Zhou et al.
// 2024's addition recipe ("Transformers Can Achieve Length Generalization But
// Not Robustly", arXiv 2402.09371, with FIRE and randomized positions; the
// hints come from Zhou et al. 2023, arXiv 2310.16028): in a decoder's addition
// every digit of both operands and of the answer follows a hint symbol that
// names its significance, so the model can find the digits to add by matching
// hints rather than by position. The K hints are ordered symbols h0, h1, ...,
// h(K-1); a sample whose longest number (operand or answer) has m digits uses m
// consecutive hints from a first one s. Training samples draw s uniform in
// [0, K - m], so every hint meets training (the paper samples consecutive
// hints from a larger ordered set, 102 in its runs as we read it; the stored
// copies here return its opening only, so the details are rotor's); held-out
// samples start at h0, as at test time.
// rotor's addition is little-endian (the task's own order), so hint i + s
// marks significance i:
//     input "3 2 + 5 9" (23 + 95), answer "8 1 1" (118), s = 4:
//     input  h4 3 h5 2 + h4 5 h5 9
//     answer h4 8 h5 1 h6 1
// The model writes the answer's hints too; exact match counts them.
#include <cstdint>
#include <string>

#include "datasets/tasks/sequence_task.h"

namespace rotor {

// The hint of index i: "h<i>".
std::string index_hint(int64_t i);

// Whether index hints apply to `task`: a decoder task with an operator between two numbers (addition).
bool takes_index_hints(const SequenceTask& task);

// The hints `sample` needs: the digits of its longest number, operand or answer.
int64_t index_hints_needed(const SequenceSample& sample, const char* op);

// `sample` with hint first + i before each of its digits of significance i.
// Throws DataError when the sample has padding (its answer would not be all digits).
SequenceSample with_index_hints(const SequenceSample& sample, const char* op, int64_t first);

}  // namespace rotor

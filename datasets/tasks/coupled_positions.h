#pragma once
// Coupled positions (data.generated.positions: coupled): the digits of the
// same significance in an addition's two operands and in its answer share a
// position, as in position coupling (Cho et al. 2024, arXiv 2405.20671) and
// Abacus embeddings (McLeish et al. 2024, arXiv 2405.17399), so the model
// finds the digits it must add by position at any length. rotor's rule, on
// little-endian operands and answers (the tasks' own order):
//   operand digit of significance i   position i + 1
//   the operator ("+")                 position 0
//   answer symbol i                    position i + 1 (queries: the query that
//                                      predicts it; prompt_answer: the token
//                                      that carries it; the answer's end mark
//                                      and padding continue the count)
//   the answer mark "="                position 0
//     input "1 0 1 + 1 1", layout queries:
//     tokens     1 0 1 + 1 1 ? ? ? ? ? ? ?
//     positions  1 2 3 0 1 2 1 2 3 4 5 6 7
// The papers also start the count at a random offset in training:
// data.generated.position_offset K moves each training sample's positions from
// 1 on by its own offset in [0, K] (sequence_task_data.cpp); held-out samples
// count from 1, as at test time.
#include <cstdint>
#include <vector>

#include "datasets/tasks/sequence_layout.h"
#include "datasets/tasks/sequence_task.h"

namespace rotor {

// One position per token of render(sample, layout). `op` separates the two operands;
// an input without it is one number. Throws DataError when a task's input has two.
std::vector<int32_t> coupled_positions(const SequenceSample& sample, const char* op, SequenceLayout layout);

}  // namespace rotor

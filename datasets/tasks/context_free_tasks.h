#pragma once
// The outputs of the context-free tasks (context_free_tasks.cpp) as pure
// functions of an input, so that tests check them on hand-made inputs. An
// input outside the task's language throws DataError.
#include <string>
#include <vector>

namespace rotor {

// The stack-manipulation symbols: the stack's values are "0" and "1".
inline constexpr const char* kPop = "POP";
inline constexpr const char* kPushZero = "PUSH0";
inline constexpr const char* kPushOne = "PUSH1";
inline constexpr const char* kStackEnd = "END";  // the authors' termination token 2
// solve-equation's equals sign ("=" is the prompt_answer layout's).
inline constexpr const char* kEquals = "==";

// A stack of "0"/"1" given bottom to top, then POP / PUSH0 / PUSH1 actions (a
// POP on an empty stack does nothing): the final stack top to bottom, "END",
// then "0"s up to n + 1 symbols.
std::vector<std::string> stack_manipulation_output(const std::vector<std::string>& input);
// The input reversed.
std::vector<std::string> reverse_string_output(const std::vector<std::string>& input);
// An expression of digits 0..4 with brackets, binary +, -, * and unary minus
// on a digit (d, -d, (d), (-d), (E op E)): its value mod 5.
std::vector<std::string> modular_arithmetic_brackets_output(const std::vector<std::string>& input);
// An expression as above without "*" with one digit replaced by "x", then
// "==" and its value: the digit x (the one value in 0..4 that satisfies it).
std::vector<std::string> solve_equation_output(const std::vector<std::string>& input);

}  // namespace rotor

#pragma once
// The outputs of the regular tasks (regular_tasks.cpp) as pure functions of
// an input, so that tests check them on hand-made inputs. Inputs are over the
// task's alphabet; anything else throws DataError.
#include <string>
#include <vector>

namespace rotor {

// Over {0, 1}: "0" if the number of unequal neighbours ("01" or "10") is
// even, else "1" (even iff the first symbol equals the last).
std::vector<std::string> even_pairs_output(const std::vector<std::string>& input);
// "d op d op ... d" with digits 0..4 and op in {+, -, *}: its value mod 5,
// multiplications first.
std::vector<std::string> modular_arithmetic_output(const std::vector<std::string>& input);
// Over {0, 1}: the number of "1"s mod 2.
std::vector<std::string> parity_check_output(const std::vector<std::string>& input);
// Moves over {-1, 0, +1} from state 0 on a cycle of 5: the final state.
std::vector<std::string> cycle_navigation_output(const std::vector<std::string>& input);

}  // namespace rotor

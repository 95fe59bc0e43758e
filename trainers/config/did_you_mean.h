#pragma once
// The "(did you mean 'x'?)" of error messages: the closest of the valid
// names to a misspelt one, when it is close at all.
#include <string>
#include <vector>

namespace rotor {

// " (did you mean 'x'?)" for the candidate with the smallest edit distance
// to `word`, or "" when none is within max(2, a third of the word).
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

// The same for a dotted config key: a key of the same last name in another
// section first ("model.interleaved_position.randomized" -> "model.position.randomized"),
// else did_you_mean over the whole keys.
std::string did_you_mean_key(const std::string& key, const std::vector<std::string>& keys);

}  // namespace rotor

#include "datasets/lm_windows.h"

#include <algorithm>

#include "datasets/data_error.h"

namespace rotor {

std::vector<int32_t> token_stream(const TokenizedSplit& split, int32_t separator) {
  std::vector<int32_t> stream;
  stream.reserve(split.tokens.size() + static_cast<size_t>(split.num_docs()));
  for (int64_t d = 0; d < split.num_docs(); ++d) {
    stream.insert(stream.end(), split.doc_tokens(d), split.doc_tokens(d) + split.doc_length(d));
    stream.push_back(separator);
  }
  return stream;
}

TokenizedSplit lm_blocks(const std::string& name, const std::vector<int32_t>& stream, int64_t length, int64_t stride) {
  if (length < 1) throw DataError("lm windows: length must be at least 1, got " + std::to_string(length));
  if (stride < 1 || stride > length) {
    throw DataError("lm windows: stride must be in [1, length = " + std::to_string(length) + "], got " +
                    std::to_string(stride));
  }
  const auto size = static_cast<int64_t>(stream.size());
  if (size < 2) {
    throw DataError("lm windows: split '" + name + "' has " + std::to_string(size) +
                    " tokens; a window needs at least 2 (an input and its target)");
  }
  TokenizedSplit out;
  out.name = name;
  // Window i's targets stream[start + 1, end); the previous window scored
  // those up to its own end, start - stride + length + 1, i.e. the first
  // length - stride of them.
  const auto overlap = static_cast<int32_t>(length - stride);
  for (int64_t start = 0;; start += stride) {
    const int64_t end = std::min(start + length + 1, size);
    out.add(std::vector<int32_t>(stream.begin() + start, stream.begin() + end), start == 0 ? 0 : overlap);
    if (end == size) break;
  }
  return out;
}

}  // namespace rotor

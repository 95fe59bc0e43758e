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

namespace {

void check_window(int64_t length, int64_t stride) {
  if (length < 1) throw DataError("lm windows: length must be at least 1, got " + std::to_string(length));
  if (stride < 1 || stride > length) {
    throw DataError("lm windows: stride must be in [1, length = " + std::to_string(length) + "], got " +
                    std::to_string(stride));
  }
}

// Appends the windows of tokens[0, size) (size >= 2), which sit at `offset` in the stream.
void cut(const int32_t* tokens, int64_t size, int64_t offset, int64_t length, int64_t stride, StreamWindows& out) {
  // Window i's targets tokens[start + 1, end); the previous window scored
  // those up to its own end, start - stride + length + 1, i.e. the first
  // length - stride of them.
  const auto overlap = static_cast<int32_t>(length - stride);
  for (int64_t start = 0;; start += stride) {
    const int64_t end = std::min(start + length + 1, size);
    out.windows.add(std::vector<int32_t>(tokens + start, tokens + end), start == 0 ? 0 : overlap);
    out.starts.push_back(offset + start);
    if (end == size) break;
  }
}

}  // namespace

TokenizedSplit lm_blocks(const std::string& name, const std::vector<int32_t>& stream, int64_t length, int64_t stride) {
  check_window(length, stride);
  const auto size = static_cast<int64_t>(stream.size());
  if (size < 2) {
    throw DataError("lm windows: split '" + name + "' has " + std::to_string(size) +
                    " tokens; a window needs at least 2 (an input and its target)");
  }
  StreamWindows out;
  out.windows.name = name;
  cut(stream.data(), size, 0, length, stride, out);
  return std::move(out.windows);
}

StreamWindows lm_windows(const TokenizedSplit& split, int32_t separator, int64_t length, int64_t stride,
                         BlockPacking packing, int64_t max_targets) {
  std::vector<int32_t> stream = token_stream(split, separator);
  if (max_targets > 0 && static_cast<int64_t>(stream.size()) > max_targets + 1)
    stream.resize(static_cast<size_t>(max_targets + 1));
  const auto kept = static_cast<int64_t>(stream.size());
  if (packing == BlockPacking::stream) {
    StreamWindows out{lm_blocks(split.name, stream, length, stride), {}};
    for (int64_t i = 0; i < out.windows.num_docs(); ++i) out.starts.push_back(i * stride);
    return out;
  }
  check_window(length, stride);
  StreamWindows out;
  out.windows.name = split.name;
  int64_t offset = 0;
  for (int64_t d = 0; d < split.num_docs() && offset < kept; ++d) {
    const int64_t size = std::min(split.doc_length(d) + 1, kept - offset);  // the document and its SEP
    if (size >= 2) cut(stream.data() + offset, size, offset, length, stride, out);
    offset += size;
  }
  if (out.windows.num_docs() == 0)
    throw DataError("lm windows: split '" + split.name + "' has no document with a token to predict");
  return out;
}

}  // namespace rotor

#pragma once
// The composed attention the fused op must reproduce, built from engine ops:
// matmul -> + bias expanded to [H, N, N] (+ the pair bias composed) -> softmax with the key mask ->
// dropout -> matmul. Holds B x H x N x N tensors; tests and bench/ only.
#include <limits>
#include <vector>

#include "engine/ops.h"
#include "engine/pair_bias.h"

namespace rotor::test {

inline Var composed_attention(const Var& q, const Var& k, const Var& v, const AttentionOptions& opt) {
  const int64_t B = q.size(0), N = q.size(2);
  Var logits = matmul(mul_scalar(q, opt.scale), k, false, true);  // [B, H, N, N]
  if (opt.bias.defined()) {
    std::vector<int32_t> offsets(static_cast<size_t>(N * N));
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j < N; ++j) offsets[i * N + j] = static_cast<int32_t>(i - j + N - 1);
    // [H, 2N-1] -> rows of [2N-1, H] looked up per (i, j) -> [N, N, H] -> [H, N, N]
    const Var expanded = permute(embedding(transpose(opt.bias, 0, 1), offsets, {N, N}), {2, 0, 1});
    logits = add(logits, expanded);
  }
  if (opt.pair_bias) logits = add(logits, opt.pair_bias->compose(N));
  Tensor mask;
  if (!opt.key_lengths.empty()) {
    std::vector<double> m(static_cast<size_t>(B * N));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < N; ++j)
        m[b * N + j] = j < opt.key_lengths[b] ? 0.0 : -std::numeric_limits<double>::infinity();
    mask = Tensor::from_doubles({B, 1, 1, N}, q.dtype(), m);
  }
  Var p = softmax(logits, mask);
  if (opt.dropout > 0.0) p = dropout(p, opt.dropout, opt.dropout_key, true);
  return matmul(p, v);
}

}  // namespace rotor::test

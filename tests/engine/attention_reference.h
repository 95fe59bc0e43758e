#pragma once
// The composed attention the fused op must reproduce, built from engine ops:
// matmul -> + bias expanded to [H, N, N] (+ the pair bias composed) -> softmax with the key (and causal) mask ->
// dropout -> matmul. Holds B x H x N x N tensors; tests and bench/ only.
#include <limits>
#include <vector>

#include "engine/ops.h"
#include "engine/pair_bias.h"

namespace rotor::test {

// The logit mask: -inf for padding keys (j >= key_lengths[b]) and, causal,
// for keys after the query (j > i): [B, 1, 1, N], [B, 1, N, N] or none.
inline Tensor attention_mask(const AttentionOptions& opt, int64_t B, int64_t N, DType dtype) {
  if (opt.key_lengths.empty() && !opt.causal) return Tensor();
  const int64_t rows = opt.causal ? N : 1;
  std::vector<double> m(static_cast<size_t>(B * rows * N));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < N; ++j) {
        const bool attended = (opt.key_lengths.empty() || j < opt.key_lengths[b]) && (!opt.causal || j <= i);
        m[(b * rows + i) * N + j] = attended ? 0.0 : -std::numeric_limits<double>::infinity();
      }
  return Tensor::from_doubles({B, 1, rows, N}, dtype, m);
}

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
  Var p = softmax(logits, attention_mask(opt, B, N, q.dtype()));
  if (opt.dropout > 0.0) p = dropout(p, opt.dropout, opt.dropout_key, true);
  return matmul(p, v);
}

}  // namespace rotor::test

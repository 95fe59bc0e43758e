#pragma once
// The probabilities of the fused attention (attention.h), one query row at a
// time, for diagnostics: the fused forward never forms them. Each row's
// scores are computed as the forward computes them, with the same tile
// products (fp32, or bf16 inputs under Precision::bf16), scale, per-offset
// bias, pair bias, key lengths and causal cut, then normalised by a softmax
// over the row:
//   p_ij = exp(s_ij - max_j s_ij) / sum_j exp(s_ij - max_j s_ij),  0 for keys the row does not attend.
// Memory is O(N) per row, plus one head's K (O(N dh)) prepared once per head.
// Dropout is not applied: these are the probabilities before it.
#include <cstdint>
#include <vector>

#include "engine/kernels/attention.h"

namespace rotor::kernels {

template <class T>
class AttentionRows {
 public:
  // q, k: [B, H, N, dh]; bias: [H, 2N - 1] or nullptr; contextual: [B, H, N, N] added to the
  // scores (a content-dependent bias the caller formed, CoPE's) or nullptr; c.dropout is ignored.
  // The buffers must outlive this object.
  AttentionRows(const AttentionConfig& c, Precision precision, const T* q, const T* k, const T* bias,
                const T* contextual = nullptr);

  // p[0, N): row i of head h of batch b. A row with no attended key is all zeros.
  void row(int64_t b, int64_t h, int64_t i, T* p);

 private:
  void prepare_head(int64_t head);
  void scores(const T* q_row, int64_t j0, int64_t n, T* s);

  AttentionConfig c_;
  bool bf16_;
  const T *q_, *k_, *bias_, *contextual_;
  int64_t head_ = -1;              // the head whose K is prepared
  std::vector<T> kt_;              // fp32/double: K^T of that head, [dh, N]
  std::vector<uint32_t> k_pairs_;  // bf16: K^T packed in pairs of rows, [dh / 2 rounded up, N] words
  std::vector<uint32_t> q_pairs_;  // bf16: the query row packed
  std::vector<double> pair_;       // one row of the pair bias
};

}  // namespace rotor::kernels

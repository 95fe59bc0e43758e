#pragma once
// Fused softmax attention (FlashAttention-2 style) over raw [B, H, N, dh]
// buffers. Per head and query row i:
//   s_ij = scale * q_i . k_j + bias[h][i - j + N - 1] + b_h(i, j)   for keys j < key_length[b]
//                                                                    (and j <= i when causal)
//   p_ij = softmax_j(s_ij),  out_i = sum_j drop_ij(p_ij) v_j
// The forward streams key tiles with an online softmax and keeps only the
// row's log-sum-exp; the backward recomputes the score tiles. Nothing of size
// N x N is allocated but the pair bias b_h(i, j) (engine/pair_bias.h) of a
// short call: it is evaluated once for the batch while its [H, N, N] fits in
// pair_table_bytes (pair_bias_table.h), else one tile at a time; its parameter
// gradients come from dS tiles (summed over the batch first, in the first case).
//
// Dropout: drop_ij(p) = keep ? p / (1 - p_drop) : 0 with the keep test of
// kernels::dropout_apply at element ((b*H + h)*N + i)*N + j, so the fused path
// and softmax -> dropout on a [B, H, N, N] tensor give the same mask for the
// same key. A row with no valid key (key_length 0) outputs zeros and gets no
// gradient, as softmax of an all -inf row does (zeros).
//
// Causal: key tiles entirely above the diagonal are never visited (forward
// and backward: about half the tiles), the diagonal tile is cut row by row,
// and the biases are evaluated only where j <= i.
//
// Work is partitioned statically by shape only (forward: batch x head x query
// block; backward: batch x head, bias and pair-bias gradients reduced over
// (batch, head) in order, or, with a pair-bias table, by head with the batch
// rows in order), so every bit is independent of the thread count.
//
// Precision::bf16 (float only; double ignores it): the inputs of every tile
// product (Q, K, V, P; in the backward also dO, dS) are rounded to bfloat16
// (attention_tile_bf16.h), the products accumulate in fp32, and the scores,
// softmax, log-sum-exp, biases and dropout stay fp32. fp32 is today's bits.
#include <cstdint>

#include "engine/pair_bias.h"
#include "engine/precision.h"
#include "engine/random.h"

namespace rotor::kernels {

struct AttentionConfig {
  int64_t B = 0, H = 0, N = 0, dh = 0;
  double scale = 1.0;                    // applied to q . k
  const int32_t* key_lengths = nullptr;  // [B], keys j < key_lengths[b] are valid; nullptr: all N
  double dropout = 0.0;                  // probability of dropping an attention weight, in [0, 1)
  RandomKey dropout_key;
  const PairBias* pair_bias = nullptr;         // b_h(i, j) added to the scores, or none
  bool causal = false;                         // query i attends keys j <= i only
  int64_t pair_table_bytes = kPairTableBytes;  // the pair bias's [H, N, N] table, when it fits
};

// q, k, v, out: [B, H, N, dh]; bias: [H, 2N - 1] or nullptr; lse: [B, H, N]
// (-inf for rows without a valid key).
template <class T>
void attention_forward(const AttentionConfig& c, Precision precision, const T* q, const T* k, const T* v, const T* bias,
                       T* out, T* lse);

// Accumulates (+=) the gradients into dq, dk, dv ([B, H, N, dh]), dbias
// ([H, 2N - 1]) and dpair (the pair bias's flat parameter gradient, its
// gradient_size() elements); any of them may be nullptr when not needed. out
// and lse are the forward's.
template <class T>
void attention_backward(const AttentionConfig& c, Precision precision, const T* q, const T* k, const T* v,
                        const T* bias, const T* out, const T* lse, const T* dout, T* dq, T* dk, T* dv, T* dbias,
                        double* dpair);

}  // namespace rotor::kernels

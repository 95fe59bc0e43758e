#pragma once
// The differentiable ops. Each is defined in engine/ops/<family>.cpp with its
// backward closure right beside its forward; kernels live in engine/kernels/.
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/pair_bias.h"
#include "engine/random.h"
#include "engine/var.h"

namespace rotor {

// --- elementwise arithmetic with numpy broadcasting (ops/arithmetic.cpp)
Var add(const Var& a, const Var& b);
Var sub(const Var& a, const Var& b);
Var mul(const Var& a, const Var& b);
Var div(const Var& a, const Var& b);
Var add_scalar(const Var& x, double s);
Var mul_scalar(const Var& x, double s);
Var pow_scalar(const Var& x, double p);
Var neg(const Var& x);
Var exp(const Var& x);
Var log(const Var& x);
Var sqrt(const Var& x);
inline Var operator+(const Var& a, const Var& b) { return add(a, b); }
inline Var operator-(const Var& a, const Var& b) { return sub(a, b); }
inline Var operator*(const Var& a, const Var& b) { return mul(a, b); }
inline Var operator/(const Var& a, const Var& b) { return div(a, b); }

// --- activations (ops/arithmetic.cpp: they share the unary machinery)
enum class GeluForm { erf, tanh };
Var gelu(const Var& x, GeluForm form = GeluForm::erf);
Var relu(const Var& x);
Var elu(const Var& x);
Var tanh(const Var& x);

// --- products (ops/matmul.cpp)
// a: [..., M, K] (or [..., K, M] if trans_a), b: [..., K, N] (or [..., N, K]);
// batch dims equal, or b of rank 2 shared by every batch.
Var matmul(const Var& a, const Var& b, bool trans_a = false, bool trans_b = false);
// x: [..., in], weight: [out, in], bias: [out] or undefined -> x weight^T + bias
Var linear(const Var& x, const Var& weight, const Var& bias = Var());
// linear(f(x), weight, bias) with the same bits, holding x but not f(x) for the
// backward, which applies f again: an MLP's [tokens, d_ff] hidden layer is then
// kept once per block instead of twice.
enum class HiddenActivation { relu, gelu_erf, gelu_tanh };
Var activated_linear(const Var& x, HiddenActivation f, const Var& weight, const Var& bias = Var());
// Attention's input projections as one product (ops/head_projection.cpp):
// x [B, N, din], weights each [d, din], biases each [d] (or all undefined, or none) ->
// per weight split_heads(linear(x, w, b)), [B, heads, N, d / heads]: one GEMM
// into a [B*N, P*d] scratch, then one pass scatters it into head layout with the
// biases added (no bias pass and no permute per projection).
std::vector<Var> project_heads(const Var& x, const std::vector<Var>& weights, const std::vector<Var>& biases,
                               int64_t heads);

// --- lookup (ops/embedding.cpp)
// table: [V, D]; ids (row-major, shape ids_shape) -> [ids_shape..., D]
Var embedding(const Var& table, const std::vector<int32_t>& ids, const Shape& ids_shape);

// --- normalisation (ops/layer_norm.cpp): over the last dim, biased variance
Var layer_norm(const Var& x, const Var& weight, const Var& bias, double eps = 1e-5);

// --- softmax family and losses (ops/softmax.cpp)
// softmax(x + mask) over the last dim; mask is a constant broadcastable to x
// (use -inf to exclude a position; a fully excluded row gives zeros).
Var softmax(const Var& x, const Tensor& mask = Tensor());
Var log_softmax(const Var& x);
struct CrossEntropyOptions {
  int32_t ignore_index = -100;
  double label_smoothing = 0.0;
};
// logits [N, C], integer labels [N] -> mean loss over non-ignored rows (a scalar)
Var cross_entropy(const Var& logits, const std::vector<int32_t>& labels, CrossEntropyOptions opt = {});

// --- regularisation (ops/dropout.cpp)
// Inverted dropout; the mask is a pure function of `key` and the element index,
// so backward recomputes it instead of storing it.
Var dropout(const Var& x, double p, const RandomKey& key, bool training);

// --- fused residual steps (ops/residual_norm.cpp): the composed ops' bits in one pass
// h = add(x, dropout(y, p, key)) (p == 0: add(x, y)); x and y of one shape.
Var add_dropout(const Var& x, const Var& y, double p, const RandomKey& key);
// That h and n = layer_norm(h, weight, bias, eps), row by row; the backward keeps h, not x or y.
struct ResidualNorm {
  Var h, n;
};
ResidualNorm residual_norm(const Var& x, const Var& y, double p, const RandomKey& key, const Var& weight,
                           const Var& bias, double eps = 1e-5);

// --- fused softmax attention (ops/attention.cpp)
struct AttentionOptions {
  double scale = 1.0;                          // logits = scale * q k^T (+ bias)
  std::vector<int32_t> key_lengths;            // [B]: keys j < key_lengths[b] are attended; empty: all
  Var bias;                                    // [H, 2N - 1] or undefined: bias[h][i - j + N - 1] joins logit (i, j)
  std::shared_ptr<const PairBias> pair_bias;   // or null: b_h(i, j) joins logit (i, j) (engine/pair_bias.h)
  double dropout = 0.0;                        // on the attention weights, in [0, 1); 0 in evaluation
  RandomKey dropout_key;                       // element ((b*H + h)*N + i)*N + j uses dropout()'s mask for this key
  bool causal = false;                         // query i attends keys j <= i only (with the key lengths)
  int64_t pair_table_bytes = kPairTableBytes;  // the pair bias evaluated once for the batch while [H, N, N] fits
};
// q, k, v: [B, H, N, dh] -> softmax(logits) v, [B, H, N, dh], in O(N) memory:
// equal to matmul(dropout(softmax(scale q k^T + bias + pair_bias, key mask)), v)
// without the N x N tensors. A batch row with key length 0 gives zeros. The
// pair bias's parameters get their gradients like q, k, v and bias.
Var attention(const Var& q, const Var& k, const Var& v, const AttentionOptions& opt = {});

// --- causal linear attention (ops/causal_linear.cpp)
// q, k: [..., N, d], v: [..., N, e] -> [..., N, e] with
// out_i = sum_{j <= i} (q_i . k_j) v_j, by running sums: O(N d e) time, O(d e)
// state per leading index, nothing N x N. Linear attention's causal numerator
// (and, with v = ones [..., N, 1], its denominator).
Var causal_linear_attention(const Var& q, const Var& k, const Var& v);

// --- shape (ops/shape.cpp)
Var reshape(const Var& x, const Shape& shape);
Var permute(const Var& x, const std::vector<int>& dims);
Var transpose(const Var& x, int dim0, int dim1);
Var concat(const std::vector<Var>& xs, int dim);
Var slice(const Var& x, int dim, int64_t start, int64_t end);
std::vector<Var> split(const Var& x, int dim, const std::vector<int64_t>& sizes);

// --- reductions (ops/reduce.cpp)
Var sum(const Var& x, int dim, bool keepdim = false);
Var mean(const Var& x, int dim, bool keepdim = false);
Var sum_all(const Var& x);
// x: [B, N, D], lengths [B] (tokens j < lengths[b] are valid) -> [B, D]
Var masked_mean_pool(const Var& x, const std::vector<int32_t>& lengths);
Var masked_max_pool(const Var& x, const std::vector<int32_t>& lengths);

// --- rotary position rotation (ops/rotary.cpp)
enum class RotaryLayout { interleaved, half };
// x: [..., N, d]; cos, sin: [N, r/2] (float64, r <= d even) angles for each
// position and pair. Pair i of a row at position n is rotated by the angle
// whose cos/sin are cos[n, i], sin[n, i]; dims >= r pass through. Backward is
// the rotation by the negative angle.
Var rotary(const Var& x, const Tensor& cos, const Tensor& sin, RotaryLayout layout);

// --- contextual positions, CoPE's core (ops/contextual_positions.cpp)
// x: [..., N, N] logits (-inf at masked keys), z: [..., N, P] each query's score against the
// embedding of every integer position 0..P-1 -> [..., N, N] with
//   p_ij = min(sum_{t = min(i, j)}^{max(i, j)} sigmoid(x_it), P - 1)   (the gates between query and key)
//   out_ij = (1 - w) z_i[floor p_ij] + w z_i[ceil p_ij],  w = p_ij - floor p_ij.
// Gradients reach x through the gates (none where the count is clamped) and z through the weights.
Var contextual_positions(const Var& x, const Var& z);

}  // namespace rotor

#pragma once
// The registry of differentiable ops. Every graph node names its op with an
// OpKind, so adding an op means adding a line here; the gradient-check suite
// fails for any entry it does not check (tests/engine/test_op_coverage.cpp).
#include <array>
#include <string_view>

namespace rotor {

// clang-format off
#define ROTOR_OPS(X) \
  X(add) X(sub) X(mul) X(div) X(add_scalar) X(mul_scalar) X(pow_scalar) X(neg) X(exp) X(log) X(sqrt) \
  X(matmul) X(linear) X(activated_linear) X(head_projection) X(embedding) X(layer_norm) X(gelu) X(relu) X(elu) X(tanh) X(softmax) X(log_softmax) \
  X(cross_entropy) X(dropout) X(residual_norm) X(add_dropout) X(reshape) X(permute) X(transpose) X(sum) X(mean) X(masked_mean_pool) \
  X(masked_max_pool) X(concat) X(slice) X(rotary) X(attention) X(causal_linear_attention) \
  X(contextual_positions)
// clang-format on

enum class OpKind {
  leaf,
#define ROTOR_ENUM(name) name,
  ROTOR_OPS(ROTOR_ENUM)
#undef ROTOR_ENUM
};

constexpr std::array<std::string_view, 1
#define ROTOR_COUNT(name) +1
                     ROTOR_OPS(ROTOR_COUNT)
#undef ROTOR_COUNT
                     >
    kOpNames = {"leaf",
#define ROTOR_NAME(name) #name,
                ROTOR_OPS(ROTOR_NAME)
#undef ROTOR_NAME
};

inline std::string_view op_name(OpKind k) { return kOpNames[static_cast<size_t>(k)]; }

}  // namespace rotor

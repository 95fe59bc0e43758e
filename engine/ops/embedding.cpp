// Embedding lookup.
#include <string>

#include "engine/kernels/embedding.h"
#include "engine/ops.h"
#include "engine/ops/op_util.h"

namespace rotor {

Var embedding(const Var& table, const std::vector<int32_t>& ids, const Shape& ids_shape) {
  if (table.rank() != 2) throw ShapeError("embedding: table must be [V, D], got " + to_string(table.shape()));
  const int64_t n = numel(ids_shape), V = table.size(0), D = table.size(1);
  if (static_cast<int64_t>(ids.size()) != n)
    throw ShapeError("embedding: " + std::to_string(ids.size()) + " ids for shape " + to_string(ids_shape));
  for (int32_t id : ids)
    if (id < 0 || id >= V)
      throw ValueError("embedding: id " + std::to_string(id) + " is outside the table of " + std::to_string(V) +
                       " rows");
  Shape os = ids_shape;
  os.push_back(D);
  Tensor y = Tensor::empty(os, table.dtype());
  dispatch(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    kernels::embedding_forward<T>(table.value().data<T>(), ids.data(), n, D, y.data<T>());
  });
  return make_result(OpKind::embedding, y, {table}, ValueReads::none(), [ids, n, D](Node& node) {
    dispatch(node.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (Tensor* g = detail::input_grad(node, 0))
        kernels::embedding_backward<T>(node.grad.data<T>(), ids.data(), n, D, g->data<T>());
    });
  });
}

}  // namespace rotor

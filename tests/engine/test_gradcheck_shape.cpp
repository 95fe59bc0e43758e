// Gradient checks: reshape, permute/transpose, concat, slice/split.
#include "engine/ops.h"
#include "gradcheck_expect.h"

using namespace rotor;
using test::randn;
using Vars = std::vector<Var>;

GRADCHECK(OpKind::reshape, "reshape (a view)") {
  CHECK_GRADIENTS(OpKind::reshape, [](const Vars& v) { return reshape(v[0], {4, -1}); }, {randn({2, 3, 4}, 1)});
}

GRADCHECK(OpKind::permute, "permute") {
  CHECK_GRADIENTS(OpKind::permute, [](const Vars& v) { return permute(v[0], {2, 0, 3, 1}); }, {randn({2, 3, 4, 5}, 1)});
  CHECK_GRADIENTS(OpKind::permute, [](const Vars& v) { return permute(v[0], {0, 2, 1, 3}); }, {randn({2, 3, 4, 2}, 2)});
}

GRADCHECK(OpKind::transpose, "transpose") {
  CHECK_GRADIENTS(OpKind::transpose, [](const Vars& v) { return transpose(v[0], -1, -2); }, {randn({2, 3, 4}, 1)});
}

GRADCHECK(OpKind::concat, "concat along inner and outer dims") {
  CHECK_GRADIENTS(OpKind::concat,
                  [](const Vars& v) {
                    return concat({v[0], v[1], v[0]}, 1);
                  },
                  {randn({2, 3, 4}, 1), randn({2, 1, 4}, 2)});
  CHECK_GRADIENTS(OpKind::concat,
                  [](const Vars& v) {
                    return concat({v[0], v[1]}, 0);
                  },
                  {randn({1, 3}, 3), randn({2, 3}, 4)});
  CHECK_GRADIENTS(OpKind::concat,
                  [](const Vars& v) {
                    return concat({v[0], v[1]}, -1);
                  },
                  {randn({2, 2}, 5), randn({2, 3}, 6)});
}

GRADCHECK(OpKind::slice, "slice and split") {
  CHECK_GRADIENTS(OpKind::slice, [](const Vars& v) { return slice(v[0], 1, 1, 3); }, {randn({2, 4, 3}, 1)});
  CHECK_GRADIENTS(OpKind::slice,
                  [](const Vars& v) {
                    auto parts = split(v[0], -1, {1, 2, 3});
                    return concat({parts[2], parts[0]}, -1);
                  },
                  {randn({2, 6}, 2)});
}

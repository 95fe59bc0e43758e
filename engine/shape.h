#pragma once
// A tensor shape: row-major extents. Negative dims in APIs count from the end.
#include <cstdint>
#include <string>
#include <vector>

namespace rotor {

using Shape = std::vector<int64_t>;

int64_t numel(const Shape& s);
std::string to_string(const Shape& s);
// Normalizes a possibly negative dim against a rank; throws ShapeError naming `op`.
int normalize_dim(int dim, int rank, const char* op);
// Numpy broadcasting of two shapes; throws ShapeError naming `op`.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

}  // namespace rotor

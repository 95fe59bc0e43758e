#include "engine/kernels/pair_bias_table.h"

#include "engine/kernels/attention_tiling.h"
#include "engine/parallel.h"

namespace rotor::kernels {

using namespace attention_tiling;

namespace {

// Every tile of one head that some batch row visits: query block i0 (m rows)
// and key block j0 (n keys); causal, those at or below the diagonal.
template <class F>
void for_each_tile(const AttentionConfig& c, int64_t head, F f) {
  for (int64_t j0 = 0; j0 < c.N; j0 += kBlock)
    for (int64_t i0 = first_query_block(c, j0); i0 < c.N; i0 += kBlock)
      f(PairTile{head, i0, std::min(kBlock, c.N - i0), j0, std::min(kBlock, c.N - j0)});
}

}  // namespace

bool pair_table_fits(const AttentionConfig& c) {
  return c.pair_bias && c.H * c.N * c.N * static_cast<int64_t>(sizeof(double)) <= c.pair_table_bytes;
}

PairBiasTable::PairBiasTable(const AttentionConfig& c) {
  if (!pair_table_fits(c)) return;
  N_ = c.N;
  values_.resize(static_cast<size_t>(c.H * c.N * c.N));
  parallel_for(c.H, 1, [&](int64_t h0, int64_t h1) {
    for (int64_t h = h0; h < h1; ++h)
      for_each_tile(c, h, [&](const PairTile& t) {
        fill_pair_bias(c, t, values_.data() + (t.head * N_ + t.i0) * N_ + t.j0, N_);
      });
  });
}

const double* PairBiasTable::tile(const AttentionConfig& c, const PairTile& t, double* scratch, int64_t& ld) const {
  if (!empty()) {
    ld = N_;
    return values_.data() + (t.head * N_ + t.i0) * N_ + t.j0;
  }
  ld = kBlock;
  fill_pair_bias(c, t, scratch, kBlock);
  return scratch;
}

void PairGradientSum::add(const PairTile& t, const double* ds, int64_t ld) {
  const int64_t N = c_.N;
  for (int64_t r = 0; r < t.rows; ++r) {
    double* row = sum_.data() + (t.head * N + t.i0 + r) * N + t.j0;
    for (int64_t col = 0; col < t.cols; ++col) row[col] += ds[r * ld + col];
  }
}

void PairGradientSum::gradients(double* grads) const {
  const int64_t size = c_.pair_bias->gradient_size(), N = c_.N;
  std::vector<double> per_head(static_cast<size_t>(c_.H * size), 0.0);
  parallel_for(c_.H, 1, [&](int64_t h0, int64_t h1) {
    for (int64_t h = h0; h < h1; ++h)
      for_each_tile(c_, h, [&](const PairTile& t) {
        accumulate_pair_gradients(c_, t, sum_.data() + (h * N + t.i0) * N + t.j0, N, per_head.data() + h * size);
      });
  });
  for (int64_t h = 0; h < c_.H; ++h)  // head order: fixed for any thread count
    for (int64_t e = 0; e < size; ++e) grads[e] += per_head[static_cast<size_t>(h * size + e)];
}

}  // namespace rotor::kernels

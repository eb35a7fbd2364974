// The int8 gather of the vector variants: kernels_impl.h's GatherI8 (the same integer sums, so the
// same bits), two rows per 16-bit multiply-add. A variant's translation unit includes it inside its
// (anonymous) namespace, after kernels_impl.h and its definition of
//  - `RowPairSums`, int32 sums of RowPairSums::kWidth columns: static constexpr int kMaxBlock (how
//    many to keep in registers at once: 1, 2, 4 or 8); static RowPairSums Zero(); static auto
//    Coefficients(uint32_t ab) (two 16-bit coefficients, a in the low half, in the form Add takes);
//    void Add(const int8_t* r0, const int8_t* r1, that form): the sums plus a * r0[i] + b * r1[i];
//    void AddTo(float* acc, float unit) const: acc[i] += float(sum i) * unit, in column order.
// It includes nothing itself.

// Columns [c, c + K * RowPairSums::kWidth) of one chunk, its rows two at a time (rows: `count`
// rounded up to even row pointers, an odd last row paired with itself; pairs: their coefficients
// packed two by two, 0 for that extra row).
template <int K>
void GatherI8Block(float* acc, const int8_t* const* rows, size_t count, const uint32_t* pairs, float unit, size_t c) {
  constexpr size_t w = RowPairSums::kWidth;
  RowPairSums s[K];
  for (int k = 0; k < K; ++k) s[k] = RowPairSums::Zero();
  for (size_t j = 0; j < count; j += 2) {
    const auto ab = RowPairSums::Coefficients(pairs[j / 2]);
    const int8_t* r0 = rows[j] + c;
    const int8_t* r1 = rows[j + 1] + c;
    for (int k = 0; k < K; ++k) s[k].Add(r0 + w * k, r1 + w * k, ab);
  }
  for (int k = 0; k < K; ++k) s[k].AddTo(acc + c + w * k, unit);
}

// Per chunk of rows: the fixed-point coefficients and row pointers once, then blocks of kMaxBlock
// RowPairSums of columns, one each of the smaller powers of two, the last n % kWidth columns in scalar
// code.
void GatherI8(float* acc, const int8_t* table, size_t stride, const uint32_t* ids, size_t count,
              const float* weights, const float* scales, size_t n) {
  const impl::I8Fixed fixed = impl::I8FixedFor(ids, count, weights, scales);
  if (fixed.scale == 0) return;
  constexpr size_t w = RowPairSums::kWidth;
  int16_t k[impl::kI8ChunkRows];
  uint32_t pairs[impl::kI8ChunkRows / 2];
  const int8_t* rows[impl::kI8ChunkRows];
  for (size_t start = 0; start < count; start += impl::kI8ChunkRows) {
    const size_t m = std::min(impl::kI8ChunkRows, count - start);
    const uint32_t* chunk = ids + start;
    impl::I8FixedCoefficients(chunk, m, weights, scales, fixed.scale, k);
    for (size_t j = 0; j < m; ++j) rows[j] = table + chunk[j] * stride;
    for (size_t j = 0; j + 1 < m; j += 2) pairs[j / 2] = static_cast<uint16_t>(k[j]) | uint32_t{static_cast<uint16_t>(k[j + 1])} << 16;
    if (m % 2 != 0) pairs[m / 2] = static_cast<uint16_t>(k[m - 1]), rows[m] = rows[m - 1];
    const size_t even = m + m % 2;
    constexpr int K = RowPairSums::kMaxBlock;
    size_t c = 0;
    for (; c + K * w <= n; c += K * w) GatherI8Block<K>(acc, rows, even, pairs, fixed.unit, c);
    if constexpr (K >= 8) {
      if (c + 4 * w <= n) GatherI8Block<4>(acc, rows, even, pairs, fixed.unit, c), c += 4 * w;
    }
    if constexpr (K >= 4) {
      if (c + 2 * w <= n) GatherI8Block<2>(acc, rows, even, pairs, fixed.unit, c), c += 2 * w;
    }
    if constexpr (K >= 2) {
      if (c + w <= n) GatherI8Block<1>(acc, rows, even, pairs, fixed.unit, c), c += w;
    }
    if (c < n) impl::GatherI8Columns(acc, table, stride, chunk, m, k, fixed.unit, c, n);
  }
}

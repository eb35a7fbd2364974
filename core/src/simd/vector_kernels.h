// The element-wise kernels written once over a per-instruction-set vector type: axpy (acc += a * x)
// and gather (the encoder's loop over a text's words, a block of accumulator columns kept in
// registers while every row adds its slice). A variant's translation unit defines, in the namespace
// where it includes this file, a struct `Vec` of Vec::kWidth floats with
//   static Vec Splat(float); static Vec Load(const float* / const uint16_t* / const int8_t*);
//   void Store(float*) const; and the operators + and * (one IEEE rounding each, no FMA)
// where Load reads exactly kWidth elements and converts them exactly (binary16 and int8 to float).
// Every element gets the same operations as in kernels_impl.h's scalar loops, in the same order, so
// any width gives the same bits. Include it inside the variant's (anonymous) namespace, after
// kernels_impl.h and the definition of Vec; it includes nothing itself.

inline float ToFloat(float x) { return x; }
inline float ToFloat(uint16_t x) { return swe::HalfToFloat(x); }
inline float ToFloat(int8_t x) { return static_cast<float>(x); }

// acc[i] += a * x[i]: whole vectors, then the last n % kWidth elements in scalar code.
template <typename T>
void Axpy(float* acc, const T* x, float a, size_t n) {
  const Vec va = Vec::Splat(a);
  size_t i = 0;
  for (; i + Vec::kWidth <= n; i += Vec::kWidth) (Vec::Load(acc + i) + va * Vec::Load(x + i)).Store(acc + i);
  for (; i < n; ++i) acc[i] += a * ToFloat(x[i]);
}

// Columns [c, c + K * kWidth): K accumulator registers while every row adds its slice, rows in order.
template <int K, typename T>
void GatherBlock(float* acc, const T* table, size_t stride, const uint32_t* ids, size_t count,
                 const float* weights, const float* scales, size_t c) {
  Vec s[K];
  for (int k = 0; k < K; ++k) s[k] = Vec::Load(acc + c + Vec::kWidth * k);
  for (size_t j = 0; j < count; ++j) {
    const Vec a = Vec::Splat(impl::Coefficient(ids[j], weights, scales));
    const T* row = table + ids[j] * stride + c;
    for (int k = 0; k < K; ++k) s[k] = s[k] + a * Vec::Load(row + Vec::kWidth * k);
  }
  for (int k = 0; k < K; ++k) s[k].Store(acc + c + Vec::kWidth * k);
}

// Blocks of 8, 4, 2 and 1 registers' columns; the last n % kWidth columns in scalar code (a wider load
// could read past the end of the table), with the same operations per element.
template <typename T>
void Gather(float* acc, const T* table, size_t stride, const uint32_t* ids, size_t count, const float* weights,
            const float* scales, size_t n) {
  constexpr size_t w = Vec::kWidth;
  size_t c = 0;
  for (; c + 8 * w <= n; c += 8 * w) GatherBlock<8>(acc, table, stride, ids, count, weights, scales, c);
  if (c + 4 * w <= n) GatherBlock<4>(acc, table, stride, ids, count, weights, scales, c), c += 4 * w;
  if (c + 2 * w <= n) GatherBlock<2>(acc, table, stride, ids, count, weights, scales, c), c += 2 * w;
  if (c + w <= n) GatherBlock<1>(acc, table, stride, ids, count, weights, scales, c), c += w;
  if (c == n) return;
  for (size_t j = 0; j < count; ++j) {
    const float a = impl::Coefficient(ids[j], weights, scales);
    const T* row = table + ids[j] * stride;
    for (size_t i = c; i < n; ++i) acc[i] += a * ToFloat(row[i]);
  }
}

// The entry points of the kernel table (kernels_table.h, when the variant defines SWE_KERNELS_VEC).
void VecAxpyF32(float* acc, const float* x, float a, size_t n) { Axpy(acc, x, a, n); }
void VecAxpyF16(float* acc, const uint16_t* x, float a, size_t n) { Axpy(acc, x, a, n); }
void VecAxpyI8(float* acc, const int8_t* x, float a, size_t n) { Axpy(acc, x, a, n); }
void VecGatherF32(float* acc, const float* table, size_t stride, const uint32_t* ids, size_t count,
                  const float* weights, size_t n) {
  Gather(acc, table, stride, ids, count, weights, nullptr, n);
}
void VecGatherF16(float* acc, const uint16_t* table, size_t stride, const uint32_t* ids, size_t count,
                  const float* weights, size_t n) {
  Gather(acc, table, stride, ids, count, weights, nullptr, n);
}
void VecGatherI8(float* acc, const int8_t* table, size_t stride, const uint32_t* ids, size_t count,
                 const float* weights, const float* scales, size_t n) {
  Gather(acc, table, stride, ids, count, weights, scales, n);
}

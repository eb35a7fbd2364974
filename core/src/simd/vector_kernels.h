// Every kernel of the vector variants (AVX2, wasm simd128) written once over per-instruction-set
// vector types. A variant's translation unit defines, in the namespace where it includes this file:
//  - `Vec`, Vec::kWidth floats (8 or 4, a divisor of impl::kLanes):
//      static Vec Splat(float); static Vec Load(const float* / const uint16_t* / const int8_t*);
//      void Store(float*) const; the operators + and * (one IEEE rounding each, no FMA);
//      static float Finish(const Vec* s, const float* a, const float* b, size_t m): the impl::kLanes
//      lanes of a float reduction, held in kLanes / kWidth registers s[0], s[1], ... (lane j is
//      element j % kWidth of s[j / kWidth]), plus a[j] * b[j] in lane j for j < m (m < kLanes: the
//      tail), summed by impl::Combine's tree;
//    Load reads exactly kWidth elements and converts them exactly (binary16 and int8 to float);
//  - `I8s`, I8s::kWidth int8 values in the form the integer multiply takes (static I8s Load(const
//    int8_t*)), and `I32s`, int32 partial sums (static I32s Zero(); int32_t Sum() const; operator +),
//    with `I32s MulAdd(I32s s, I8s a, I8s b)`: s plus the products a[i] * b[i] (exact, any grouping);
//  - `RowPairSums`, the int8 gather's sums (gather_i8.h).
// Every element gets the same operations as in kernels_impl.h's scalar loops, in the same order (the
// float reductions in the 8 lanes of kernels_impl.h), so any width gives the same bits. Include it
// inside the variant's (anonymous) namespace, after kernels_impl.h and those definitions; it includes
// nothing itself.

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

// x[i] *= a: whole vectors, then the rest in scalar code.
void Scale(float* x, float a, size_t n) {
  const Vec va = Vec::Splat(a);
  size_t i = 0;
  for (; i + Vec::kWidth <= n; i += Vec::kWidth) (Vec::Load(x + i) * va).Store(x + i);
  for (; i < n; ++i) x[i] *= a;
}

// The f32 and f16 gathers. Columns [c, c + K * kWidth): K accumulator registers while every row adds
// its slice, rows in order.
template <int K, typename T>
void GatherBlock(float* acc, const T* table, size_t stride, const uint32_t* ids, size_t count,
                 const float* weights, size_t c) {
  Vec s[K];
  for (int k = 0; k < K; ++k) s[k] = Vec::Load(acc + c + Vec::kWidth * k);
  for (size_t j = 0; j < count; ++j) {
    const Vec a = Vec::Splat(impl::Coefficient(ids[j], weights, nullptr));
    const T* row = table + ids[j] * stride + c;
    for (int k = 0; k < K; ++k) s[k] = s[k] + a * Vec::Load(row + Vec::kWidth * k);
  }
  for (int k = 0; k < K; ++k) s[k].Store(acc + c + Vec::kWidth * k);
}

// Blocks of 8, 4, 2 and 1 registers' columns; the last n % kWidth columns in scalar code (a wider load
// could read past the end of the table), with the same operations per element.
template <typename T>
void Gather(float* acc, const T* table, size_t stride, const uint32_t* ids, size_t count, const float* weights,
            size_t n) {
  constexpr size_t w = Vec::kWidth;
  size_t c = 0;
  for (; c + 8 * w <= n; c += 8 * w) GatherBlock<8>(acc, table, stride, ids, count, weights, c);
  if (c + 4 * w <= n) GatherBlock<4>(acc, table, stride, ids, count, weights, c), c += 4 * w;
  if (c + 2 * w <= n) GatherBlock<2>(acc, table, stride, ids, count, weights, c), c += 2 * w;
  if (c + w <= n) GatherBlock<1>(acc, table, stride, ids, count, weights, c), c += w;
  if (c == n) return;
  for (size_t j = 0; j < count; ++j) {
    const float a = impl::Coefficient(ids[j], weights, nullptr);
    const T* row = table + ids[j] * stride;
    for (size_t i = c; i < n; ++i) acc[i] += a * ToFloat(row[i]);
  }
}

#include "simd/gather_i8.h"  // GatherI8, over the variant's RowPairSums

// out[r] = dot(q, rows + r * n) for r < R, R rows at once: the query is loaded once per step and R
// independent sums hide the add latency. Each row keeps DotF32's lane order exactly: full steps of
// kLanes elements in the lanes, then Vec::Finish adds the tail of n % kLanes products to lanes 0..
// and sums the lanes by the fixed tree. (Rows through pointers, each row's registers in turn: with
// the other loop order V8 ran the wasm scan 30% slower.) Always inlined: a call per row, with the
// result through memory, cost dot_f32 7% at 256 dims.
template <size_t R>
[[gnu::always_inline]] inline void Dots(const float* q, const float* rows, size_t n, float* out) {
  constexpr size_t w = Vec::kWidth, regs = impl::kLanes / Vec::kWidth;
  const float* row[R];
  Vec s[R][regs];
  for (size_t r = 0; r < R; ++r) {
    row[r] = rows + r * n;
    for (size_t k = 0; k < regs; ++k) s[r][k] = Vec::Splat(0.0f);
  }
  size_t i = 0;
  for (; i + impl::kLanes <= n; i += impl::kLanes) {
    Vec vq[regs];
    for (size_t k = 0; k < regs; ++k) vq[k] = Vec::Load(q + i + k * w);
    for (size_t r = 0; r < R; ++r) {
      for (size_t k = 0; k < regs; ++k) s[r][k] = s[r][k] + vq[k] * Vec::Load(row[r] + i + k * w);
    }
  }
  for (size_t r = 0; r < R; ++r) out[r] = Vec::Finish(s[r], q + i, row[r] + i, n - i);
}

// The same for int8: exact integer sums, the last n % I8s::kWidth products in scalar code. One row
// alone keeps two sums, taking steps in turn, so that its adds do not wait on each other.
template <size_t R>
[[gnu::always_inline]] inline void Dots(const int8_t* q, const int8_t* rows, size_t n, int32_t* out) {
  constexpr size_t w = I8s::kWidth, chains = R == 1 ? 2 : 1;
  I32s s[R][chains];
  for (size_t r = 0; r < R; ++r) {
    for (size_t c = 0; c < chains; ++c) s[r][c] = I32s::Zero();
  }
  size_t i = 0;
  for (; i + chains * w <= n; i += chains * w) {
    for (size_t c = 0; c < chains; ++c) {
      const I8s vq = I8s::Load(q + i + c * w);
      for (size_t r = 0; r < R; ++r) s[r][c] = MulAdd(s[r][c], vq, I8s::Load(rows + r * n + i + c * w));
    }
  }
  if (chains > 1 && i + w <= n) {
    const I8s vq = I8s::Load(q + i);
    for (size_t r = 0; r < R; ++r) s[r][0] = MulAdd(s[r][0], vq, I8s::Load(rows + r * n + i));
    i += w;
  }
  for (size_t r = 0; r < R; ++r) {  // a loop of its own: s stays in registers
    I32s sum = s[r][0];
    for (size_t c = 1; c < chains; ++c) sum = sum + s[r][c];
    out[r] = sum.Sum();
  }
  if (i == n) return;
#pragma GCC unroll 4
  for (size_t r = 0; r < R; ++r) out[r] += impl::DotI8(q + i, rows + r * n + i, n - i);
}

// One row (dot_*, and the rows of a scan after its blocks of four).
inline float Dot(const float* a, const float* b, size_t n) {
  float out;
  Dots<1>(a, b, n, &out);
  return out;
}
inline int32_t Dot(const int8_t* a, const int8_t* b, size_t n) {
  int32_t out;
  Dots<1>(a, b, n, &out);
  return out;
}

// The index scan: blocks of four rows, then one at a time.
template <typename T, typename Out>
void Scan(const T* q, const T* rows, size_t n, size_t count, Out* out) {
  size_t r = 0;
  for (; r + 4 <= count; r += 4) Dots<4>(q, rows + r * n, n, out + r);
  for (; r < count; ++r) out[r] = Dot(q, rows + r * n, n);
}

// The entry points of the kernel table (kernels_table.h, when the variant defines SWE_KERNELS_VEC).
void VecAxpyF32(float* acc, const float* x, float a, size_t n) { Axpy(acc, x, a, n); }
void VecAxpyF16(float* acc, const uint16_t* x, float a, size_t n) { Axpy(acc, x, a, n); }
void VecAxpyI8(float* acc, const int8_t* x, float a, size_t n) { Axpy(acc, x, a, n); }
void VecScaleF32(float* x, float a, size_t n) { Scale(x, a, n); }
float VecDotF32(const float* a, const float* b, size_t n) { return Dot(a, b, n); }
int32_t VecDotI8(const int8_t* a, const int8_t* b, size_t n) { return Dot(a, b, n); }
void VecScanF32(const float* q, const float* rows, size_t n, size_t count, float* out) {
  Scan(q, rows, n, count, out);
}
void VecScanI8(const int8_t* q, const int8_t* rows, size_t n, size_t count, int32_t* out) {
  Scan(q, rows, n, count, out);
}
void VecGatherF32(float* acc, const float* table, size_t stride, const uint32_t* ids, size_t count,
                  const float* weights, size_t n) {
  Gather(acc, table, stride, ids, count, weights, n);
}
void VecGatherF16(float* acc, const uint16_t* table, size_t stride, const uint32_t* ids, size_t count,
                  const float* weights, size_t n) {
  Gather(acc, table, stride, ids, count, weights, n);
}
void VecGatherI8(float* acc, const int8_t* table, size_t stride, const uint32_t* ids, size_t count,
                 const float* weights, const float* scales, size_t n) {
  GatherI8(acc, table, stride, ids, count, weights, scales, n);
}

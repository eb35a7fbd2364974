// The portable source of every kernel: the generic variant, and the reference of the others. A
// variant's translation unit defines SWE_KERNELS_NS (its namespace: generic, avx2, wasm128, ...) and
// SWE_KERNELS_NAME, includes this file, then (a vector variant) its vector types and
// vector_kernels.h, then kernels_table.h; the instruction set comes from the compile flags of that
// unit. Keep it portable: plain C++ loops, nothing specific to one architecture.
//
// Determinism (docs/FORMAT.md, "Determinism"): every variant gives bit-identical results.
//  - No FMA: core is compiled with -ffp-contract=off and kernels never call fma().
//  - Element-wise kernels (axpy) have one rounding per operation, so any vector width agrees.
//  - A float reduction of n products uses 8 lanes: lane j sums the products of the elements
//    i = j, j + 8, j + 16, ... in increasing i (the tail of n % 8 elements goes to lanes 0.. of the
//    same 8), each lane starting from +0. The lanes are then combined by the fixed tree
//        ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7)),
//    which is what an 8-wide register gives (high half + low half, then pairs), and what two
//    4-wide registers give (hi + lo, then pairs): a 4-lane wasm simd128 build reproduces it exactly.
//  - Integer dot products are exact (int32 cannot overflow for n <= 65536), so their order is free.
#ifndef SWE_KERNELS_NS
#error "define SWE_KERNELS_NS before including kernels_impl.h"
#endif
#ifndef SWE_KERNELS_NAME
#error "define SWE_KERNELS_NAME before including kernels_impl.h"
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "simd/kernels.h"
#include "swe/half.h"

namespace swe::simd::SWE_KERNELS_NS {
namespace impl {

constexpr size_t kLanes = 8;

inline float Combine(const float* s) {
  return ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
}

inline void AxpyF32(float* acc, const float* x, float a, size_t n) {
  for (size_t i = 0; i < n; ++i) acc[i] += a * x[i];
}

inline void AxpyF16(float* acc, const uint16_t* x, float a, size_t n) {
  for (size_t i = 0; i < n; ++i) acc[i] += a * HalfToFloat(x[i]);
}

inline void AxpyI8(float* acc, const int8_t* x, float a, size_t n) {
  for (size_t i = 0; i < n; ++i) acc[i] += a * static_cast<float>(x[i]);
}

inline float DotF32(const float* a, const float* b, size_t n) {
  float s[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) s[j] += a[i + j] * b[i + j];
  }
  for (size_t j = 0; i + j < n; ++j) s[j] += a[i + j] * b[i + j];
  return Combine(s);
}

inline int32_t DotI8(const int8_t* a, const int8_t* b, size_t n) {
  int32_t s = 0;
  for (size_t i = 0; i < n; ++i) s += int32_t{a[i]} * int32_t{b[i]};
  return s;
}

// One row after the other, each in DotF32's order. (A four-row version of this loop, written for
// auto-vectorisation, came out 5x slower with GCC 12: the 4 x 8 partial sums spill. The vector
// variants block rows in vector_kernels.h.)
inline void ScanF32(const float* q, const float* rows, size_t n, size_t count, float* out) {
  for (size_t r = 0; r < count; ++r) out[r] = DotF32(q, rows + r * n, n);
}

inline void ScanI8(const int8_t* q, const int8_t* rows, size_t n, size_t count, int32_t* out) {
  for (size_t r = 0; r < count; ++r) out[r] = DotI8(q, rows + r * n, n);
}


// Gather: axpy once per id, called directly (no indirect call per word). Each
// element gets its additions in the order of ids, so any blocking of the columns gives the same
// bits: the vector variants (vector_kernels.h) keep a block of the accumulator in registers across all rows
// (GCC 12 keeps a local block of a plain loop in memory, which measured slower than this).
inline float Coefficient(uint32_t id, const float* weights, const float* scales) {
  float a = weights != nullptr ? weights[id] : 1.0f;
  if (scales != nullptr) a = a * scales[id];
  return a;
}

inline void GatherF32(float* acc, const float* table, size_t stride, const uint32_t* ids, size_t count,
                      const float* weights, size_t n) {
  for (size_t j = 0; j < count; ++j) {
    AxpyF32(acc, table + ids[j] * stride, Coefficient(ids[j], weights, nullptr), n);
  }
}

inline void GatherF16(float* acc, const uint16_t* table, size_t stride, const uint32_t* ids, size_t count,
                      const float* weights, size_t n) {
  for (size_t j = 0; j < count; ++j) {
    AxpyF16(acc, table + ids[j] * stride, Coefficient(ids[j], weights, nullptr), n);
  }
}

inline void GatherI8(float* acc, const int8_t* table, size_t stride, const uint32_t* ids, size_t count,
                     const float* weights, const float* scales, size_t n) {
  for (size_t j = 0; j < count; ++j) {
    AxpyI8(acc, table + ids[j] * stride, Coefficient(ids[j], weights, scales), n);
  }
}

}  // namespace impl

}  // namespace swe::simd::SWE_KERNELS_NS

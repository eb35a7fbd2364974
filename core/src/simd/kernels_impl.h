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
//  - The int8 gather sums in integers (GatherI8 below), so its order is free too.
//  - Hamming distances, CRC-32C and the ASCII run are integer results: exact in any variant.
#ifndef SWE_KERNELS_NS
#error "define SWE_KERNELS_NS before including kernels_impl.h"
#endif
#ifndef SWE_KERNELS_NAME
#error "define SWE_KERNELS_NAME before including kernels_impl.h"
#endif

#include <algorithm>
#include <cmath>
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

// The end of a float reduction whose 8 lanes a narrower variant holds in kLanes / V::kWidth registers
// (NEON and wasm: lanes 0-3 in s[0], 4-7 in s[1]): stored, the tail of m < kLanes products added to
// lanes 0.. in scalar code, then Combine's tree. A variant's Vec::Finish when it has no faster one.
template <typename V>
float FinishStored(const V* s, const float* a, const float* b, size_t m) {
  float lanes[kLanes];
  for (size_t k = 0; k < kLanes / V::kWidth; ++k) s[k].Store(lanes + k * V::kWidth);
  for (size_t j = 0; j < m; ++j) lanes[j] += a[j] * b[j];
  return Combine(lanes);
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

inline void ScaleF32(float* x, float a, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] *= a;
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


// Gather (f32, f16): axpy once per id, called directly (no indirect call per word). Each
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

// The int8 gather in integers (docs/FORMAT.md, "Determinism"). A row's coefficient c (weight *
// scale: finite and >= 0, the reader checks) becomes the 15-bit fixed-point k = min(32767,
// trunc(c * 2^e + 0.5)), with one power of two 2^e per call that puts the largest c in [2^14, 2^15)
// (e <= 126, so 2^-e is a normal float). Rows are summed exactly, S[i] = sum of k * q[i] in int32,
// in chunks of kI8ChunkRows rows (|k * q| <= 32767 * 128, so 512 rows cannot overflow), and each
// chunk adds float(S[i]) * 2^-e to acc[i] (S[i] * 2^-e rounded once). The products need no order, so
// the vector variants pair rows for one 16-bit multiply-add (vpmaddwd, i32x4.dot_i16x8) per two rows
// and any width gives these bits. A coefficient is off by at most half a unit, 2^-15 of the largest
// one in the text: far below the int8 rows' own rounding (1/254 of a row's largest value).
constexpr size_t kI8ChunkRows = 512;

struct I8Fixed {
  float scale = 0, unit = 0;  // 2^e and 2^-e; both 0 when every coefficient is 0 (nothing to add)
};

// 2^e for a normal float's exponent (-126 <= e <= 127), from its bits (no libm call per text).
inline float PowerOfTwo(int e) {
  const uint32_t bits = static_cast<uint32_t>(e + 127) << 23;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline I8Fixed I8FixedFor(const uint32_t* ids, size_t count, const float* weights, const float* scales) {
  float largest = 0;
  for (size_t j = 0; j < count; ++j) largest = std::max(largest, Coefficient(ids[j], weights, scales));
  if (!(largest > 0)) return {};
  uint32_t bits;
  std::memcpy(&bits, &largest, sizeof bits);
  int exponent = static_cast<int>(bits >> 23) - 126;  // largest = f * 2^exponent, f in [0.5, 1)
  if ((bits >> 23) == 0) std::frexp(largest, &exponent);  // subnormal
  const int e = std::min(15 - exponent, 126);              // >= 15 - 128
  return {PowerOfTwo(e), PowerOfTwo(-e)};
}

// k[j] for the `count` rows of one chunk (scale: I8FixedFor's 2^e).
inline void I8FixedCoefficients(const uint32_t* ids, size_t count, const float* weights, const float* scales,
                                float scale, int16_t* k) {
  for (size_t j = 0; j < count; ++j) {
    const float c = Coefficient(ids[j], weights, scales) * scale + 0.5f;
    k[j] = c >= 32767.0f ? int16_t{32767} : static_cast<int16_t>(c);
  }
}

// Columns [begin, end) of one chunk (count <= kI8ChunkRows rows, k their fixed-point coefficients):
// blocks of 64 columns summed row by row in int32.
inline void GatherI8Columns(float* acc, const int8_t* table, size_t stride, const uint32_t* ids, size_t count,
                            const int16_t* k, float unit, size_t begin, size_t end) {
  constexpr size_t kBlock = 64;
  for (size_t c = begin; c < end; c += kBlock) {
    const size_t width = std::min(kBlock, end - c);
    int32_t s[kBlock] = {};
    for (size_t j = 0; j < count; ++j) {
      const int8_t* row = table + ids[j] * stride + c;
      for (size_t i = 0; i < width; ++i) s[i] += int32_t{row[i]} * int32_t{k[j]};
    }
    for (size_t i = 0; i < width; ++i) acc[c + i] += static_cast<float>(s[i]) * unit;
  }
}

inline void GatherI8(float* acc, const int8_t* table, size_t stride, const uint32_t* ids, size_t count,
                     const float* weights, const float* scales, size_t n) {
  const I8Fixed fixed = I8FixedFor(ids, count, weights, scales);
  if (fixed.scale == 0) return;
  int16_t k[kI8ChunkRows];
  for (size_t start = 0; start < count; start += kI8ChunkRows) {
    const size_t rows = std::min(kI8ChunkRows, count - start);
    I8FixedCoefficients(ids + start, rows, weights, scales, fixed.scale, k);
    GatherI8Columns(acc, table, stride, ids + start, rows, k, fixed.unit, 0, n);
  }
}

// The binary codes' distances (the popcounts compile to one instruction where the compile flags
// allow: the x86 variants' -mpopcnt, aarch64's cnt, wasm's i64.popcnt). The vector variants use it
// for widths other than their unrolled one, and for the rows after their last full step.
[[gnu::always_inline]] inline void HammingDistances(const uint64_t* q, const uint64_t* rows, size_t words,
                                                    size_t count, uint16_t* out) {
  if (words == 4) {  // 256 dims, the default model: unrolled
    for (size_t r = 0; r < count; ++r, rows += 4) {
      out[r] = static_cast<uint16_t>(__builtin_popcountll(q[0] ^ rows[0]) + __builtin_popcountll(q[1] ^ rows[1]) +
                                     __builtin_popcountll(q[2] ^ rows[2]) + __builtin_popcountll(q[3] ^ rows[3]));
    }
    return;
  }
  for (size_t r = 0; r < count; ++r, rows += words) {
    uint32_t d = 0;
    for (size_t w = 0; w < words; ++w) d += __builtin_popcountll(q[w] ^ rows[w]);
    out[r] = static_cast<uint16_t>(d);
  }
}

inline uint32_t Crc32c(const uint8_t* data, size_t size, uint32_t crc) { return Crc32cTables(data, size, crc); }

// The run of ASCII letters and digits at p[0..n), a byte at a time.
inline size_t AsciiAlnumRun(const char* p, size_t n, bool* upper) {
  size_t i = 0;
  for (; i < n; ++i) {
    const auto b = static_cast<uint8_t>(p[i]);
    if (static_cast<uint8_t>(b - '0') >= 10 && static_cast<uint8_t>((b | 0x20) - 'a') >= 26) break;
    if (static_cast<uint8_t>(b - 'A') < 26) *upper = true;
  }
  return i;
}

// The same 16 bytes a step, for the vector variants: classify(p) gives two masks of p[0..16), `other`
// (bytes that are not ASCII letters or digits) and `capitals` (A-Z), kBits bits per byte (all set or
// all clear), byte 0 lowest. The bytes after the last whole block go a byte at a time.
template <int kBits, class Classify>
[[gnu::always_inline]] inline size_t AsciiAlnumRunBlocks(const char* p, size_t n, bool* upper, Classify classify) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint64_t other, capitals;
    classify(p + i, &other, &capitals);
    if (other != 0) {
      const auto length = static_cast<size_t>(__builtin_ctzll(other)) / kBits;
      if (capitals & ((uint64_t{1} << (kBits * length)) - 1)) *upper = true;
      return i + length;
    }
    if (capitals != 0) *upper = true;
  }
  return i + AsciiAlnumRun(p + i, n - i, upper);
}

}  // namespace impl

}  // namespace swe::simd::SWE_KERNELS_NS

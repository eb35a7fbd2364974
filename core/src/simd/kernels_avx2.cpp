// The AVX2 + F16C kernels (compiled with -mavx2 -mf16c, never -mfma). Same source as every variant;
// the kernels GCC does not vectorize well are written with intrinsics here, with the same results
// (measured on 256 dims, ns per row, generic-source AVX2 build -> intrinsics, Zen 4 VM):
//  - axpy_f16: the F16C conversion (exact, like the generic bit trick) instead of integer ops;
//  - axpy_i8: vpmovsxbd + vcvtdq2ps (exact) instead of GCC's 16-bit detour (37 -> 19);
//  - dot_i8 / scan_i8: sign-extend to 16 bit and vpmaddwd (integer sums are exact in any order);
//  - dot_f32 / scan_f32: one ymm of 8 lanes per row is exactly the documented lane order; the tail
//    is a masked load (zeros add +0, which leaves a lane unchanged: a lane that starts at +0 is
//    never -0), and the scan runs 4 rows at once to hide the add latency (212 -> 12: GCC spilled its own 4-row version);
//  - gather_*: up to 64 columns of the accumulator in ymm registers while every row of the text
//    adds its slice (the generic gather is one axpy per row, with acc loaded and stored each time):
//    f32, 256 dims, STS-B words: 30 -> 19 ns per word.
// axpy and gather are vector_kernels.h over an 8-float Vec, the same source as the wasm variant's.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#define SWE_KERNELS_NS avx2
#define SWE_KERNELS_NAME "avx2"
#include "simd/kernels_impl.h"

namespace swe::simd::avx2 {
namespace {

__m256i Widen16(const int8_t* p) {
  return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// The documented combine tree: ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7)).
float Combine(__m256 v) {
  const __m128 t = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));  // s_j + s_j+4
  const __m128 u = _mm_add_ps(t, _mm_movehl_ps(t, t));                                  // (t0 + t2, t1 + t3)
  return _mm_cvtss_f32(_mm_add_ss(u, _mm_movehdup_ps(u)));
}

// Lanes j < tail set (tail < 8), for masked loads.
__m256i TailMask(size_t tail) {
  alignas(32) static const int32_t kMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMask + 8 - tail));
}

// Eight floats (vector_kernels.h's Vec): F16C and vpmovsxbd + vcvtdq2ps convert exactly.
struct Vec {
  static constexpr size_t kWidth = 8;
  __m256 v;
  static Vec Splat(float a) { return {_mm256_set1_ps(a)}; }
  static Vec Load(const float* p) { return {_mm256_loadu_ps(p)}; }
  static Vec Load(const uint16_t* p) { return {_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))}; }
  static Vec Load(const int8_t* p) {
    return {_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))))};
  }
  void Store(float* p) const { _mm256_storeu_ps(p, v); }
};
Vec operator+(Vec a, Vec b) { return {_mm256_add_ps(a.v, b.v)}; }
Vec operator*(Vec a, Vec b) { return {_mm256_mul_ps(a.v, b.v)}; }

#include "simd/vector_kernels.h"

int32_t Sum(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_cvtsi128_si32(s);
}

}  // namespace

float DotF32Avx2(const float* a, const float* b, size_t n) {
  __m256 s = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    s = _mm256_add_ps(s, _mm256_mul_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
  if (i < n) {
    const __m256i mask = TailMask(n - i);
    s = _mm256_add_ps(s, _mm256_mul_ps(_mm256_maskload_ps(a + i, mask), _mm256_maskload_ps(b + i, mask)));
  }
  return Combine(s);
}

void ScanF32Avx2(const float* q, const float* rows, size_t n, size_t count, float* out) {
  const size_t body = n & ~size_t{7};
  const __m256i mask = TailMask(n - body);
  size_t r = 0;
  for (; r + 4 <= count; r += 4) {
    const float* r0 = rows + r * n;
    const float* r1 = r0 + n;
    const float* r2 = r1 + n;
    const float* r3 = r2 + n;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i < body; i += 8) {
      const __m256 vq = _mm256_loadu_ps(q + i);
      s0 = _mm256_add_ps(s0, _mm256_mul_ps(vq, _mm256_loadu_ps(r0 + i)));
      s1 = _mm256_add_ps(s1, _mm256_mul_ps(vq, _mm256_loadu_ps(r1 + i)));
      s2 = _mm256_add_ps(s2, _mm256_mul_ps(vq, _mm256_loadu_ps(r2 + i)));
      s3 = _mm256_add_ps(s3, _mm256_mul_ps(vq, _mm256_loadu_ps(r3 + i)));
    }
    if (body < n) {
      const __m256 vq = _mm256_maskload_ps(q + body, mask);
      s0 = _mm256_add_ps(s0, _mm256_mul_ps(vq, _mm256_maskload_ps(r0 + body, mask)));
      s1 = _mm256_add_ps(s1, _mm256_mul_ps(vq, _mm256_maskload_ps(r1 + body, mask)));
      s2 = _mm256_add_ps(s2, _mm256_mul_ps(vq, _mm256_maskload_ps(r2 + body, mask)));
      s3 = _mm256_add_ps(s3, _mm256_mul_ps(vq, _mm256_maskload_ps(r3 + body, mask)));
    }
    out[r] = Combine(s0);
    out[r + 1] = Combine(s1);
    out[r + 2] = Combine(s2);
    out[r + 3] = Combine(s3);
  }
  for (; r < count; ++r) out[r] = DotF32Avx2(q, rows + r * n, n);
}

int32_t DotI8Avx2(const int8_t* a, const int8_t* b, size_t n) {
  __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(Widen16(a + i), Widen16(b + i)));
    s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(Widen16(a + i + 16), Widen16(b + i + 16)));
  }
  if (i + 16 <= n) {
    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(Widen16(a + i), Widen16(b + i)));
    i += 16;
  }
  return Sum(_mm256_add_epi32(s0, s1)) + impl::DotI8(a + i, b + i, n - i);
}

void ScanI8Avx2(const int8_t* q, const int8_t* rows, size_t n, size_t count, int32_t* out) {
  size_t r = 0;
  for (; r + 4 <= count; r += 4) {
    const int8_t* r0 = rows + r * n;
    const int8_t* r1 = r0 + n;
    const int8_t* r2 = r1 + n;
    const int8_t* r3 = r2 + n;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
      const __m256i vq = Widen16(q + i);
      s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(vq, Widen16(r0 + i)));
      s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(vq, Widen16(r1 + i)));
      s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(vq, Widen16(r2 + i)));
      s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(vq, Widen16(r3 + i)));
    }
    const size_t tail = n - i;
    out[r] = Sum(s0) + impl::DotI8(q + i, r0 + i, tail);
    out[r + 1] = Sum(s1) + impl::DotI8(q + i, r1 + i, tail);
    out[r + 2] = Sum(s2) + impl::DotI8(q + i, r2 + i, tail);
    out[r + 3] = Sum(s3) + impl::DotI8(q + i, r3 + i, tail);
  }
  for (; r < count; ++r) out[r] = DotI8Avx2(q, rows + r * n, n);
}

}  // namespace swe::simd::avx2

#define SWE_KERNELS_VEC 1  // axpy and gather: vector_kernels.h
#define SWE_KERNEL_DOT_F32 DotF32Avx2
#define SWE_KERNEL_DOT_I8 DotI8Avx2
#define SWE_KERNEL_SCAN_F32 ScanF32Avx2
#define SWE_KERNEL_SCAN_I8 ScanI8Avx2
#include "simd/kernels_table.h"

// The WebAssembly simd128 kernels (compiled with -msimd128, the only variant of a wasm build). Same
// source as every variant; each kernel is written with wasm_simd128.h intrinsics because clang does
// not vectorize float reductions without fast-math, and gives exactly the generic results:
//  - axpy: element-wise, one multiply then one add per element (wasm has no fused multiply-add);
//  - dot_f32 / scan_f32: the 8 lanes of kernels_impl.h as two 4-wide registers (lanes 0-3, 4-7),
//    the tail of n % 8 elements added to lanes 0.. in scalar code, then impl::Combine's fixed tree;
//  - dot_i8 / scan_i8: sign-extend to 16 bit and i32x4.dot_i16x8 (integer sums are exact);
//  - axpy and gather (the encoder's loop over a text's words): vector_kernels.h over a 4-float Vec,
//    the same source as kernels_avx2.cpp's 8-float one.
#include <wasm_simd128.h>

#include <cstddef>
#include <cstdint>

#define SWE_KERNELS_NS wasm128
#define SWE_KERNELS_NAME "wasm128"
#include "simd/kernels_impl.h"

namespace swe::simd::wasm128 {
namespace {

// Unaligned loads and stores (wasm's v128.load/store have no alignment requirement).
v128_t Load(const float* p) { return wasm_v128_load(p); }
void Store(float* p, v128_t v) { wasm_v128_store(p, v); }

// Four binary16 values (zero-extended to 32 bit) -> four floats, swe::HalfToFloat's bit trick (swe/half.h).
v128_t HalfToFloat4(v128_t h) {
  const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x8000)), 16);
  const v128_t magnitude = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x7FFF)), 13);
  const v128_t scaled = wasm_f32x4_mul(magnitude, wasm_f32x4_splat(0x1p112f));
  const v128_t special = wasm_f32x4_ge(scaled, wasm_f32x4_splat(0x1p16f));  // all ones or zero
  return wasm_v128_or(wasm_v128_or(scaled, wasm_v128_and(special, wasm_i32x4_splat(0x7F800000))), sign);
}

// The eight lanes lo (0-3) and hi (4-7), plus a scalar tail of n - i (< 8) products, combined.
float Finish(v128_t lo, v128_t hi, const float* a, const float* b, size_t i, size_t n) {
  float s[impl::kLanes];
  Store(s, lo);
  Store(s + 4, hi);
  for (size_t j = 0; i + j < n; ++j) s[j] += a[i + j] * b[i + j];
  return impl::Combine(s);
}

// The low four int8 lanes of v as floats, exactly. Written as integer ops on the float's bits
// (q + 128 is in [1, 255]: 2^23 + (q + 128) as a float, minus 2^23 + 128, is exactly q, +0 for 0)
// because clang 14 folds sign extension + f32x4.convert_i32x4 into a scalarised conversion from
// 16 bit (12 extract/convert/replace per 4 lanes); this stays 5 vector instructions.
v128_t Int8ToFloat4(v128_t v) {
  const v128_t biased = wasm_v128_xor(v, wasm_i8x16_splat(static_cast<int8_t>(0x80)));  // q + 128, unsigned
  const v128_t widened = wasm_i8x16_shuffle(biased, wasm_i8x16_splat(0), 0, 16, 16, 16, 1, 16, 16, 16, 2, 16, 16,
                                            16, 3, 16, 16, 16);
  return wasm_f32x4_sub(wasm_v128_or(widened, wasm_i32x4_splat(0x4B000000)), wasm_f32x4_splat(8388736.0f));
}

// Sixteen int8 values starting at p as two i16x8 halves.
v128_t WidenLow(v128_t v) { return wasm_i16x8_extend_low_i8x16(v); }
v128_t WidenHigh(v128_t v) { return wasm_i16x8_extend_high_i8x16(v); }

int32_t Sum(v128_t v) {
  return wasm_i32x4_extract_lane(v, 0) + wasm_i32x4_extract_lane(v, 1) + wasm_i32x4_extract_lane(v, 2) +
         wasm_i32x4_extract_lane(v, 3);
}

// dot products of 16 int8 pairs, as four int32 partial sums
v128_t Dot16(v128_t a, v128_t b) {
  return wasm_i32x4_add(wasm_i32x4_dot_i16x8(WidenLow(a), WidenLow(b)),
                        wasm_i32x4_dot_i16x8(WidenHigh(a), WidenHigh(b)));
}

// Four floats (vector_kernels.h's Vec), reading exactly four table values and converting them exactly.
struct Vec {
  static constexpr size_t kWidth = 4;
  v128_t v;
  static Vec Splat(float a) { return {wasm_f32x4_splat(a)}; }
  static Vec Load(const float* p) { return {wasm_v128_load(p)}; }
  static Vec Load(const uint16_t* p) { return {HalfToFloat4(wasm_u32x4_load16x4(p))}; }
  static Vec Load(const int8_t* p) { return {Int8ToFloat4(wasm_v128_load32_zero(p))}; }
  void Store(float* p) const { wasm_v128_store(p, v); }
};
Vec operator+(Vec a, Vec b) { return {wasm_f32x4_add(a.v, b.v)}; }
Vec operator*(Vec a, Vec b) { return {wasm_f32x4_mul(a.v, b.v)}; }

#include "simd/vector_kernels.h"

}  // namespace

float DotF32Wasm(const float* a, const float* b, size_t n) {
  v128_t lo = wasm_f32x4_splat(0.0f), hi = lo;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    lo = wasm_f32x4_add(lo, wasm_f32x4_mul(Load(a + i), Load(b + i)));
    hi = wasm_f32x4_add(hi, wasm_f32x4_mul(Load(a + i + 4), Load(b + i + 4)));
  }
  return Finish(lo, hi, a, b, i, n);
}

int32_t DotI8Wasm(const int8_t* a, const int8_t* b, size_t n) {
  v128_t s = wasm_i32x4_splat(0);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) s = wasm_i32x4_add(s, Dot16(wasm_v128_load(a + i), wasm_v128_load(b + i)));
  return Sum(s) + impl::DotI8(a + i, b + i, n - i);
}

// Four rows at once, as kernels_impl.h's ScanF32: each row keeps DotF32's lane order exactly.
void ScanF32Wasm(const float* q, const float* rows, size_t n, size_t count, float* out) {
  size_t r = 0;
  for (; r + 4 <= count; r += 4) {
    const float* row[4] = {rows + r * n, rows + (r + 1) * n, rows + (r + 2) * n, rows + (r + 3) * n};
    v128_t lo[4], hi[4];
    for (int k = 0; k < 4; ++k) lo[k] = hi[k] = wasm_f32x4_splat(0.0f);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const v128_t q0 = Load(q + i), q1 = Load(q + i + 4);
      for (int k = 0; k < 4; ++k) {
        lo[k] = wasm_f32x4_add(lo[k], wasm_f32x4_mul(q0, Load(row[k] + i)));
        hi[k] = wasm_f32x4_add(hi[k], wasm_f32x4_mul(q1, Load(row[k] + i + 4)));
      }
    }
    for (int k = 0; k < 4; ++k) out[r + k] = Finish(lo[k], hi[k], q, row[k], i, n);
  }
  for (; r < count; ++r) out[r] = DotF32Wasm(q, rows + r * n, n);
}

void ScanI8Wasm(const int8_t* q, const int8_t* rows, size_t n, size_t count, int32_t* out) {
  size_t r = 0;
  for (; r + 4 <= count; r += 4) {
    const int8_t* row[4] = {rows + r * n, rows + (r + 1) * n, rows + (r + 2) * n, rows + (r + 3) * n};
    v128_t s[4];
    for (int k = 0; k < 4; ++k) s[k] = wasm_i32x4_splat(0);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
      const v128_t vq = wasm_v128_load(q + i);
      for (int k = 0; k < 4; ++k) s[k] = wasm_i32x4_add(s[k], Dot16(vq, wasm_v128_load(row[k] + i)));
    }
    for (int k = 0; k < 4; ++k) out[r + k] = Sum(s[k]) + impl::DotI8(q + i, row[k] + i, n - i);
  }
  for (; r < count; ++r) out[r] = DotI8Wasm(q, rows + r * n, n);
}

}  // namespace swe::simd::wasm128

#define SWE_KERNELS_VEC 1  // axpy and gather: vector_kernels.h
#define SWE_KERNEL_DOT_F32 DotF32Wasm
#define SWE_KERNEL_DOT_I8 DotI8Wasm
#define SWE_KERNEL_SCAN_F32 ScanF32Wasm
#define SWE_KERNEL_SCAN_I8 ScanI8Wasm
#include "simd/kernels_table.h"

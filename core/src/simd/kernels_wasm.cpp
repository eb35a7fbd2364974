// The WebAssembly simd128 kernels (compiled with -msimd128, the only variant of a wasm build):
// vector_kernels.h over the 4-float types below, the same source as kernels_avx2.cpp's 8-float ones,
// with exactly the generic results (clang does not vectorize float reductions without fast-math, so
// the portable loops would stay scalar here):
//  - axpy, scale and the f32/f16 gathers: element-wise, one multiply then one add per element (wasm has
//    no fused multiply-add);
//  - dot_f32 / scan_f32: the 8 lanes of kernels_impl.h as two 4-wide registers (lanes 0-3, 4-7);
//  - dot_i8 / scan_i8: sign-extend to 16 bit and i32x4.dot_i16x8 (integer sums are exact);
//  - gather_i8: two rows per i32x4.dot_i16x8 (RowPairSums; kernels_impl.h's integer sums);
//  - the ASCII run: 16 bytes a step, u8x16 compares and a bitmask; the Hamming scan (i64.popcnt) and
//    CRC-32C (tables) are the portable ones.
#include <wasm_simd128.h>

#include <cstddef>
#include <cstdint>

#define SWE_KERNELS_NS wasm128
#define SWE_KERNELS_NAME "wasm128"
#include "simd/kernels_impl.h"

namespace swe::simd::wasm128 {
namespace {

// Four binary16 values (zero-extended to 32 bit) -> four floats, swe::HalfToFloat's bit trick (swe/half.h).
v128_t HalfToFloat4(v128_t h) {
  const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x8000)), 16);
  const v128_t magnitude = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x7FFF)), 13);
  const v128_t scaled = wasm_f32x4_mul(magnitude, wasm_f32x4_splat(0x1p112f));
  const v128_t special = wasm_f32x4_ge(scaled, wasm_f32x4_splat(0x1p16f));  // all ones or zero
  return wasm_v128_or(wasm_v128_or(scaled, wasm_v128_and(special, wasm_i32x4_splat(0x7F800000))), sign);
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

// Four floats (vector_kernels.h's Vec), reading exactly four table values and converting them
// exactly; the documented 8 lanes are two of them (lanes 0-3, 4-7).
struct Vec {
  static constexpr size_t kWidth = 4;
  v128_t v;
  static Vec Splat(float a) { return {wasm_f32x4_splat(a)}; }
  static Vec Load(const float* p) { return {wasm_v128_load(p)}; }  // no alignment needed
  static Vec Load(const uint16_t* p) { return {HalfToFloat4(wasm_u32x4_load16x4(p))}; }
  static Vec Load(const int8_t* p) { return {Int8ToFloat4(wasm_v128_load32_zero(p))}; }
  void Store(float* p) const { wasm_v128_store(p, v); }
  // (A zero-padded tail load and a shuffle tree ran the scan 30-60% slower in V8.)
  static float Finish(const Vec* s, const float* a, const float* b, size_t m) { return impl::FinishStored(s, a, b, m); }
};
Vec operator+(Vec a, Vec b) { return {wasm_f32x4_add(a.v, b.v)}; }
Vec operator*(Vec a, Vec b) { return {wasm_f32x4_mul(a.v, b.v)}; }

// Sixteen int8 values as two i16x8 halves, for i32x4.dot_i16x8.
struct I8s {
  static constexpr size_t kWidth = 16;
  v128_t lo, hi;
  static I8s Load(const int8_t* p) {
    const v128_t v = wasm_v128_load(p);
    return {wasm_i16x8_extend_low_i8x16(v), wasm_i16x8_extend_high_i8x16(v)};
  }
};
struct I32s {
  v128_t v;
  static I32s Zero() { return {wasm_i32x4_splat(0)}; }
  int32_t Sum() const {
    return wasm_i32x4_extract_lane(v, 0) + wasm_i32x4_extract_lane(v, 1) + wasm_i32x4_extract_lane(v, 2) +
           wasm_i32x4_extract_lane(v, 3);
  }
};
I32s operator+(I32s a, I32s b) { return {wasm_i32x4_add(a.v, b.v)}; }
I32s MulAdd(I32s s, I8s a, I8s b) {
  return s + I32s{wasm_i32x4_add(wasm_i32x4_dot_i16x8(a.lo, b.lo), wasm_i32x4_dot_i16x8(a.hi, b.hi))};
}

// The int8 gather's sums of 8 columns for two rows at a time: both rows sign-extended to 16 bit by
// the load, interleaved (r0[i], r1[i]) and multiplied by (a, b) with i32x4.dot_i16x8 (V8: pmaddwd).
struct RowPairSums {
  static constexpr size_t kWidth = 8;
  static constexpr int kMaxBlock = 2;  // V8 ran 4 (8 accumulators) ~10% slower
  v128_t lo, hi;  // columns 0-3, 4-7
  static RowPairSums Zero() { return {wasm_i32x4_splat(0), wasm_i32x4_splat(0)}; }
  static v128_t Coefficients(uint32_t ab) { return wasm_i32x4_splat(static_cast<int32_t>(ab)); }
  void Add(const int8_t* r0, const int8_t* r1, v128_t ab) {
    const v128_t x = wasm_i16x8_load8x8(r0), y = wasm_i16x8_load8x8(r1);
    lo = wasm_i32x4_add(lo, wasm_i32x4_dot_i16x8(wasm_i16x8_shuffle(x, y, 0, 8, 1, 9, 2, 10, 3, 11), ab));
    hi = wasm_i32x4_add(hi, wasm_i32x4_dot_i16x8(wasm_i16x8_shuffle(x, y, 4, 12, 5, 13, 6, 14, 7, 15), ab));
  }
  void AddTo(float* acc, float unit) const {
    const v128_t u = wasm_f32x4_splat(unit);
    wasm_v128_store(acc, wasm_f32x4_add(wasm_v128_load(acc), wasm_f32x4_mul(wasm_f32x4_convert_i32x4(lo), u)));
    wasm_v128_store(acc + 4, wasm_f32x4_add(wasm_v128_load(acc + 4), wasm_f32x4_mul(wasm_f32x4_convert_i32x4(hi), u)));
  }
};

#include "simd/vector_kernels.h"

// 16 bytes, one mask bit per byte.
void ClassifyAscii(const char* p, uint64_t* other, uint64_t* capitals) {
  const v128_t v = wasm_v128_load(p);
  const v128_t digit = wasm_u8x16_lt(wasm_i8x16_sub(v, wasm_i8x16_splat('0')), wasm_i8x16_splat(10));
  const v128_t letter =
      wasm_u8x16_lt(wasm_i8x16_sub(wasm_v128_or(v, wasm_i8x16_splat(0x20)), wasm_i8x16_splat('a')), wasm_i8x16_splat(26));
  const v128_t capital = wasm_u8x16_lt(wasm_i8x16_sub(v, wasm_i8x16_splat('A')), wasm_i8x16_splat(26));
  *other = ~static_cast<uint32_t>(wasm_i8x16_bitmask(wasm_v128_or(digit, letter))) & 0xFFFF;
  *capitals = static_cast<uint32_t>(wasm_i8x16_bitmask(capital));
}

void VecHammingDistances(const uint64_t* q, const uint64_t* rows, size_t words, size_t count, uint16_t* out) {
  impl::HammingDistances(q, rows, words, count, out);
}
uint32_t VecCrc32c(const uint8_t* data, size_t size, uint32_t crc) { return Crc32cTables(data, size, crc); }
size_t VecAsciiAlnumRun(const char* p, size_t n, bool* upper) {
  return impl::AsciiAlnumRunBlocks<1>(p, n, upper, ClassifyAscii);
}

}  // namespace
}  // namespace swe::simd::wasm128

#define SWE_KERNELS_VEC 1  // every kernel: Vec<Kernel> (vector_kernels.h and the ones above)
#include "simd/kernels_table.h"

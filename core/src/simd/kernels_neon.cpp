// The NEON (AArch64 Advanced SIMD) kernels: vector_kernels.h over the 4-float types below, the same
// source as the AVX2 and wasm variants', with exactly the generic results (compiled with
// -ffp-contract=off like all of core, so no multiply and add is fused into fmla):
//  - axpy, scale and the f32/f16 gathers: element-wise, one multiply then one add per element; fcvtl
//    converts binary16 exactly;
//  - dot_f32 / scan_f32: the 8 lanes of kernels_impl.h as two 4-wide registers (lanes 0-3, 4-7);
//  - dot_i8 / scan_i8: smull to 16 bit, sadalp into int32 (exact for every int8);
//  - gather_i8: two rows' 16-bit coefficients by smlal (RowPairSums; kernels_impl.h's integer sums);
//  - the Hamming scan: cnt on 16 bytes of two words, uadalp into 16-bit sums;
//  - CRC-32C: the ARMv8 crc32c instructions where the CPU has them (HWCAP_CRC32; this file is compiled
//    with +crc for them alone), the tables otherwise;
//  - the ASCII run: 16 bytes a step, compares narrowed to a 64-bit mask of 4 bits a byte (shrn).
// NEON itself is part of every AArch64 CPU, so this variant always runs there. Speed on real ARM
// hardware has not been measured; qemu's numbers say nothing about it.
#include <arm_acle.h>
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#define SWE_KERNELS_NS neon
#define SWE_KERNELS_NAME "neon"
#include "simd/kernels_impl.h"

namespace swe::simd::neon {
namespace {

// Four floats (vector_kernels.h's Vec), reading exactly four table values and converting them
// exactly; the documented 8 lanes are two of them (lanes 0-3, 4-7).
struct Vec {
  static constexpr size_t kWidth = 4;
  float32x4_t v;
  static Vec Splat(float a) { return {vdupq_n_f32(a)}; }
  static Vec Load(const float* p) { return {vld1q_f32(p)}; }
  static Vec Load(const uint16_t* p) { return {vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)))}; }
  static Vec Load(const int8_t* p) {
    int32_t four;
    std::memcpy(&four, p, sizeof four);  // exactly 4 bytes: a wider load could pass the table's end
    const int16x8_t wide = vmovl_s8(vreinterpret_s8_s32(vdup_n_s32(four)));
    return {vcvtq_f32_s32(vmovl_s16(vget_low_s16(wide)))};
  }
  void Store(float* p) const { vst1q_f32(p, v); }
  static float Finish(const Vec* s, const float* a, const float* b, size_t m) { return impl::FinishStored(s, a, b, m); }
};
Vec operator+(Vec a, Vec b) { return {vaddq_f32(a.v, b.v)}; }
Vec operator*(Vec a, Vec b) { return {vmulq_f32(a.v, b.v)}; }

// Sixteen int8 values as they are.
struct I8s {
  static constexpr size_t kWidth = 16;
  int8x16_t v;
  static I8s Load(const int8_t* p) { return {vld1q_s8(p)}; }
};
struct I32s {
  int32x4_t v;
  static I32s Zero() { return {vdupq_n_s32(0)}; }
  int32_t Sum() const { return vaddvq_s32(v); }
};
I32s operator+(I32s a, I32s b) { return {vaddq_s32(a.v, b.v)}; }
// Products in 16 bit (|a * b| <= 2^14), pairs of them added into the int32 lanes.
I32s MulAdd(I32s s, I8s a, I8s b) {
  const int32x4_t low = vpadalq_s16(s.v, vmull_s8(vget_low_s8(a.v), vget_low_s8(b.v)));
  return {vpadalq_s16(low, vmull_high_s8(a.v, b.v))};
}

// The int8 gather's sums of 8 columns for two rows at a time: both rows sign-extended to 16 bit, each
// multiplied by its coefficient (lane 0: a, lane 1: b) into the int32 sums.
struct RowPairSums {
  static constexpr size_t kWidth = 8;
  static constexpr int kMaxBlock = 4;  // 8 of the 32 vector registers
  int32x4_t lo, hi;  // columns 0-3, 4-7
  static RowPairSums Zero() { return {vdupq_n_s32(0), vdupq_n_s32(0)}; }
  static int16x4_t Coefficients(uint32_t ab) { return vreinterpret_s16_u32(vdup_n_u32(ab)); }
  void Add(const int8_t* r0, const int8_t* r1, int16x4_t ab) {
    const int16x8_t x = vmovl_s8(vld1_s8(r0)), y = vmovl_s8(vld1_s8(r1));
    lo = vmlal_lane_s16(vmlal_lane_s16(lo, vget_low_s16(x), ab, 0), vget_low_s16(y), ab, 1);
    hi = vmlal_high_lane_s16(vmlal_high_lane_s16(hi, x, ab, 0), y, ab, 1);
  }
  void AddTo(float* acc, float unit) const {
    const float32x4_t u = vdupq_n_f32(unit);
    vst1q_f32(acc, vaddq_f32(vld1q_f32(acc), vmulq_f32(vcvtq_f32_s32(lo), u)));
    vst1q_f32(acc + 4, vaddq_f32(vld1q_f32(acc + 4), vmulq_f32(vcvtq_f32_s32(hi), u)));
  }
};

#include "simd/vector_kernels.h"

// Distances of rows of any width: two words per cnt, the byte counts added pairwise into 16-bit lanes
// (at most 16 per byte step, so 256 words cannot overflow), an odd last word by itself.
void ScanCodes(const uint64_t* q, const uint64_t* rows, size_t words, size_t count, uint16_t* out) {
  for (size_t r = 0; r < count; ++r, rows += words) {
    uint16x8_t sums = vdupq_n_u16(0);
    size_t w = 0;
    for (; w + 2 <= words; w += 2) {
      const uint8x16_t x = veorq_u8(vreinterpretq_u8_u64(vld1q_u64(q + w)), vreinterpretq_u8_u64(vld1q_u64(rows + w)));
      sums = vpadalq_u8(sums, vcntq_u8(x));
    }
    uint32_t d = vaddlvq_u16(sums);
    if (w < words) d += static_cast<uint32_t>(__builtin_popcountll(q[w] ^ rows[w]));
    out[r] = static_cast<uint16_t>(d);
  }
}

// 16 bytes; each compare's 0x00/0xFF bytes narrowed to 4 bits a byte (shift right by 4 and narrow).
uint64_t Nibbles(uint8x16_t mask) {
  return vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(mask), 4)), 0);
}
void ClassifyAscii(const char* p, uint64_t* other, uint64_t* capitals) {
  const uint8x16_t v = vld1q_u8(reinterpret_cast<const uint8_t*>(p));
  const uint8x16_t digit = vcltq_u8(vsubq_u8(v, vdupq_n_u8('0')), vdupq_n_u8(10));
  const uint8x16_t letter = vcltq_u8(vsubq_u8(vorrq_u8(v, vdupq_n_u8(0x20)), vdupq_n_u8('a')), vdupq_n_u8(26));
  const uint8x16_t capital = vcltq_u8(vsubq_u8(v, vdupq_n_u8('A')), vdupq_n_u8(26));
  *other = ~Nibbles(vorrq_u8(digit, letter));
  *capitals = Nibbles(capital);
}

#include "simd/crc32c_chains.h"

bool CpuHasCrc32() {
#if defined(__linux__) && defined(HWCAP_CRC32)
  return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#elif defined(__APPLE__)
  return true;  // every Apple Silicon CPU has the ARMv8.1 CRC instructions
#else
  return false;
#endif
}

uint32_t Crc32cInstructions(const uint8_t* data, size_t size, uint32_t crc) {
  return Crc32cChains(
      data, size, crc, [](uint32_t c, uint64_t v) { return __crc32cd(c, v); },
      [](uint32_t c, uint8_t b) { return __crc32cb(c, b); });
}

void VecHammingDistances(const uint64_t* q, const uint64_t* rows, size_t words, size_t count, uint16_t* out) {
  ScanCodes(q, rows, words, count, out);
}
uint32_t VecCrc32c(const uint8_t* data, size_t size, uint32_t crc) {
  static const bool instructions = CpuHasCrc32();
  return instructions ? Crc32cInstructions(data, size, crc) : Crc32cTables(data, size, crc);
}
size_t VecAsciiAlnumRun(const char* p, size_t n, bool* upper) {
  return impl::AsciiAlnumRunBlocks<4>(p, n, upper, ClassifyAscii);
}

}  // namespace
}  // namespace swe::simd::neon

#define SWE_KERNELS_VEC 1  // every kernel: Vec<Kernel> (vector_kernels.h and the ones above)
#include "simd/kernels_table.h"

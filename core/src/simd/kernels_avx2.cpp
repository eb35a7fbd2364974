// The AVX2 + F16C kernels (compiled with -mavx2 -mf16c -mpopcnt, never -mfma): vector_kernels.h over
// the types below, the same source as the wasm variant's, with the same results as the generic one;
// and the x86 Hamming scan, SSE4.2 CRC-32C and SSE2 ASCII run (AVX2 implies SSE4.2).
// What the intrinsics buy (measured on 256 dims, ns per row, generic-source AVX2 build -> intrinsics,
// Zen 4 VM):
//  - axpy_f16: the F16C conversion (exact, like the generic bit trick) instead of integer ops;
//  - axpy_i8: vpmovsxbd + vcvtdq2ps (exact) instead of GCC's 16-bit detour (37 -> 19);
//  - dot_i8 / scan_i8: |a| times b with a's sign by vpmaddubsw, widened by vpmaddwd (integer sums
//    are exact in any order; values in [-127, 127], kernels.h);
//  - dot_f32 / scan_f32: one ymm of 8 lanes per row is exactly the documented lane order; the tail
//    is a masked load, and the scan runs 4 rows at once to hide the add latency (212 -> 12: GCC
//    spilled its own 4-row version);
//  - gather_*: up to 64 columns of the accumulator in ymm registers while every row of the text
//    adds its slice (the generic gather is one axpy per row, with acc loaded and stored each time):
//    f32, 256 dims, STS-B words: 30 -> 19 ns per word; int8 sums two rows per vpmaddwd (RowPairSums).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#define SWE_KERNELS_NS avx2
#define SWE_KERNELS_NAME "avx2"
#include "simd/kernels_impl.h"

namespace swe::simd::avx2 {
namespace {

// Lanes j < m set (m < 8), for masked loads.
__m256i FirstMask(size_t m) {
  alignas(32) static const int32_t kMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMask + 8 - m));
}

// Eight floats (vector_kernels.h's Vec): F16C and vpmovsxbd + vcvtdq2ps convert exactly; all eight
// lanes of the documented order in one register.
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
  // The tail as a masked load (zeros add 0 * 0 = +0, which leaves a lane unchanged: a lane that
  // starts at +0 never becomes -0), then ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7)): high
  // half + low half, then pairs.
  static float Finish(const Vec* s, const float* a, const float* b, size_t m) {
    __m256 v = s->v;
    if (m != 0) {
      const __m256i mask = FirstMask(m);
      v = _mm256_add_ps(v, _mm256_mul_ps(_mm256_maskload_ps(a, mask), _mm256_maskload_ps(b, mask)));
    }
    const __m128 t = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));  // s_j + s_j+4
    const __m128 u = _mm_add_ps(t, _mm_movehl_ps(t, t));                                  // (t0 + t2, t1 + t3)
    return _mm_cvtss_f32(_mm_add_ss(u, _mm_movehdup_ps(u)));
  }
};
Vec operator+(Vec a, Vec b) { return {_mm256_add_ps(a.v, b.v)}; }
Vec operator*(Vec a, Vec b) { return {_mm256_mul_ps(a.v, b.v)}; }

// Thirty-two int8 values as they are.
struct I8s {
  static constexpr size_t kWidth = 32;
  __m256i v;
  static I8s Load(const int8_t* p) { return {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))}; }
};
struct I32s {
  __m256i v;
  static I32s Zero() { return {_mm256_setzero_si256()}; }
  int32_t Sum() const {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(s);
  }
};
I32s operator+(I32s a, I32s b) { return {_mm256_add_epi32(a.v, b.v)}; }
// a[i] * b[i] as |a[i]| * (b[i] with a[i]'s sign): vpmaddubsw takes unsigned times signed bytes and adds
// pairs (at most 2 * 127 * 127, no saturation for values in [-127, 127]), vpmaddwd by ones widens.
// Three multiply-port instructions per 32 values; sign-extending both to 16 bit took four, two of
// them on the one shuffle port (docs/BENCHMARKS.md, "Exact search"). The query is `a` in every scan, so
// its |a| is computed once per step for four rows.
I32s MulAdd(I32s s, I8s a, I8s b) {
  const __m256i pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(a.v), _mm256_sign_epi8(b.v, a.v));
  return s + I32s{_mm256_madd_epi16(pairs, _mm256_set1_epi16(1))};
}

// The int8 gather's sums of 16 columns for two rows at a time: both rows sign-extended to 16 bit,
// interleaved (r0[i], r1[i]) and multiplied by (a, b) with vpmaddwd. The interleaves work within
// 128-bit halves, so `lo` holds columns 0-3 and 8-11, `hi` 4-7 and 12-15 until AddTo.
struct RowPairSums {
  static constexpr size_t kWidth = 16;
  static constexpr int kMaxBlock = 4;  // 8 of the 16 ymm registers
  __m256i lo, hi;
  static RowPairSums Zero() { return {_mm256_setzero_si256(), _mm256_setzero_si256()}; }
  static __m256i Coefficients(uint32_t ab) { return _mm256_set1_epi32(static_cast<int32_t>(ab)); }
  void Add(const int8_t* r0, const int8_t* r1, __m256i ab) {
    const __m256i x = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r0)));
    const __m256i y = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r1)));
    lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(x, y), ab));
    hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(x, y), ab));
  }
  void AddTo(float* acc, float unit) const {
    const __m256 u = _mm256_set1_ps(unit);
    const __m256i first = _mm256_permute2x128_si256(lo, hi, 0x20), second = _mm256_permute2x128_si256(lo, hi, 0x31);
    _mm256_storeu_ps(acc, _mm256_add_ps(_mm256_loadu_ps(acc), _mm256_mul_ps(_mm256_cvtepi32_ps(first), u)));
    _mm256_storeu_ps(acc + 8, _mm256_add_ps(_mm256_loadu_ps(acc + 8), _mm256_mul_ps(_mm256_cvtepi32_ps(second), u)));
  }
};

#include "simd/vector_kernels.h"

// 256-dim codes, 8 rows a step, for x86 without VPOPCNTDQ (kernels_avx512.cpp has that one): per-byte
// popcounts by a 16-entry table (`vpshufb` on each nibble), the bytes of a row summed by `vpsadbw`.
// Rows are paired first (word 0 of rows a and b in one register, word 1 in another) so that one table
// pass and one `vpsadbw` serve two rows, and the 4 words of a row meet in 2 qword sums, added across
// the 128-bit halves.
__m256i ByteBits(__m256i x) {  // popcount of each byte
  const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,  //
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  return _mm256_add_epi8(_mm256_shuffle_epi8(table, _mm256_and_si256(x, nibble)),
                         _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble)));
}
// Qwords (a's words 0+1, b's 0+1 | a's 2+3, b's 2+3) of the distances of rows a, b at p and p + 4.
__m256i PairHalves(const uint64_t* p, __m256i query) {
  const __m256i a = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), query);
  const __m256i b = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 4)), query);
  return _mm256_sad_epu8(_mm256_add_epi8(ByteBits(_mm256_unpacklo_epi64(a, b)), ByteBits(_mm256_unpackhi_epi64(a, b))),
                         _mm256_setzero_si256());
}
// Qwords (a, b | c, d): the distances of the 4 rows at p.
__m256i Quad(const uint64_t* p, __m256i query) {
  const __m256i ab = PairHalves(p, query), cd = PairHalves(p + 8, query);
  return _mm256_add_epi64(_mm256_permute2x128_si256(ab, cd, 0x20), _mm256_permute2x128_si256(ab, cd, 0x31));
}

// Other widths and the last rows: kernels_impl.h's loop, with popcnt.
void ScanCodes(const uint64_t* q, const uint64_t* rows, size_t words, size_t count, uint16_t* out) {
  if (words != 4) return impl::HammingDistances(q, rows, words, count, out);
  const __m256i query = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
  size_t r = 0;
  for (; r + 8 <= count; r += 8, rows += 32) {
    // Unlike the AVX-512 scan, this one needs a software prefetch, and far ahead: its arithmetic takes
    // almost as long as the memory, and alone the hardware's prefetch falls behind (docs/BENCHMARKS.md).
    // 8 KB ahead: 1-4 KB gained less. An address, not a pointer: it may lie past the end.
    const uintptr_t ahead = reinterpret_cast<uintptr_t>(rows) + 8192;
    for (uintptr_t line = 0; line < 256; line += 64) __builtin_prefetch(reinterpret_cast<const void*>(ahead + line));
    // Dwords (0, 1, 4, 5 | 2, 3, 6, 7) after the pack (each distance <= 256, the upper dwords 0),
    // put in order and narrowed to 16 bits.
    const __m256i packed = _mm256_permutevar8x32_epi32(_mm256_packus_epi32(Quad(rows, query), Quad(rows + 16, query)),
                                                       _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + r),
                     _mm_packus_epi32(_mm256_castsi256_si128(packed), _mm256_extracti128_si256(packed, 1)));
  }
  impl::HammingDistances(q, rows, words, count - r, out + r);
}

// 16 bytes: unsigned x < limit as min(x, limit - 1) == x (SSE2 compares bytes as signed only), one
// mask bit per byte.
void ClassifyAscii(const char* p, uint64_t* other, uint64_t* capitals) {
  const auto below = [](__m128i x, int limit) {
    return _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(static_cast<char>(limit - 1))), x);
  };
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i digit = below(_mm_sub_epi8(v, _mm_set1_epi8('0')), 10);
  const __m128i letter = below(_mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('a')), 26);
  const __m128i capital = below(_mm_sub_epi8(v, _mm_set1_epi8('A')), 26);
  *other = ~static_cast<uint32_t>(_mm_movemask_epi8(_mm_or_si128(digit, letter))) & 0xFFFF;
  *capitals = static_cast<uint32_t>(_mm_movemask_epi8(capital));
}

#include "simd/crc32c_chains.h"

void VecHammingDistances(const uint64_t* q, const uint64_t* rows, size_t words, size_t count, uint16_t* out) {
  ScanCodes(q, rows, words, count, out);
}
uint32_t VecCrc32c(const uint8_t* data, size_t size, uint32_t crc) {
  return Crc32cChains(
      data, size, crc, [](uint32_t c, uint64_t v) { return static_cast<uint32_t>(_mm_crc32_u64(c, v)); },
      [](uint32_t c, uint8_t b) { return _mm_crc32_u8(c, b); });
}
size_t VecAsciiAlnumRun(const char* p, size_t n, bool* upper) {
  return impl::AsciiAlnumRunBlocks<1>(p, n, upper, ClassifyAscii);
}

}  // namespace
}  // namespace swe::simd::avx2

#define SWE_KERNELS_VEC 1  // every kernel: Vec<Kernel> (vector_kernels.h and the ones above)
#include "simd/kernels_table.h"

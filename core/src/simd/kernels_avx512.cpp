// AVX-512 VNNI for the int8 dot products, the exact index scan's inner loop (compiled with -mavx512f
// -mavx512bw -mavx512vnni; chosen at run time on CPUs with AVX2 and those). vpdpbusd multiplies 64
// unsigned by 64 signed bytes and adds them in fours into 16 int32 lanes: 8 a 256-dim row (4 for the
// products, 4 for the row's byte sum), where AVX2 takes 16 vpmaddwd after sign-extending both sides to
// 16 bits. Integer sums are exact in any order, so the results equal every other variant's bit for bit
// (kernels_test). gather_i8 sums two rows per vpmaddwd, 32 columns a register (gather_i8.h). The
// Hamming scan uses VPOPCNTDQ where the CPU has it (not every VNNI CPU does). Every other kernel is
// AVX2's.
#include "simd/immintrin_avx512.h"

#include <cstddef>
#include <cstdint>

#define SWE_KERNELS_NS avx512
#define SWE_KERNELS_NAME "avx512"
#include "simd/kernels_impl.h"

namespace swe::simd {
namespace avx2 {
extern const Kernels kKernels;
}
namespace avx512 {
namespace {

// dot(a, b) = dot(a + 128, b) - 128 * sum(b), where a + 128 is a ^ 0x80 as an unsigned byte (exact for
// every int8, -128 included). Lanes past n are loaded as zero bytes of b, so they add nothing.
struct Dot {
  __m512i dot = _mm512_setzero_si512(), sum = _mm512_setzero_si512();
  void Add(__m512i a_biased, __m512i b) {
    dot = _mm512_dpbusd_epi32(dot, a_biased, b);
    sum = _mm512_dpbusd_epi32(sum, _mm512_set1_epi8(1), b);
  }
  __m512i Lanes() const { return _mm512_sub_epi32(dot, _mm512_slli_epi32(sum, 7)); }
  int32_t Finish() const { return _mm512_reduce_add_epi32(Lanes()); }
};

// The lane sums of four rows' Lanes(), in order: one reduction tree for the four instead of one each.
__m256i Halves(__m512i x) { return _mm256_add_epi32(_mm512_castsi512_si256(x), _mm512_extracti64x4_epi64(x, 1)); }
__m128i SumsOfFour(__m512i a, __m512i b, __m512i c, __m512i d) {
  // hadd pairs within 128-bit lanes: ab = a01 a23 b01 b23 | a45 a67 b45 b67, then a b c d in each lane.
  const __m256i ab = _mm256_hadd_epi32(Halves(a), Halves(b)), cd = _mm256_hadd_epi32(Halves(c), Halves(d));
  const __m256i abcd = _mm256_hadd_epi32(ab, cd);
  return _mm_add_epi32(_mm256_castsi256_si128(abcd), _mm256_extracti128_si256(abcd, 1));
}

__m512i Biased(__m512i a) { return _mm512_xor_si512(a, _mm512_set1_epi8(static_cast<char>(0x80))); }
__mmask64 FirstBytes(size_t m) { return m >= 64 ? ~__mmask64{0} : (__mmask64{1} << m) - 1; }

int32_t DotI8(const int8_t* a, const int8_t* b, size_t n) {
  Dot d;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) d.Add(Biased(_mm512_loadu_si512(a + i)), _mm512_loadu_si512(b + i));
  if (i < n) {
    const __mmask64 m = FirstBytes(n - i);
    d.Add(Biased(_mm512_maskz_loadu_epi8(m, a + i)), _mm512_maskz_loadu_epi8(m, b + i));
  }
  return d.Finish();
}

// Four rows a step, their lanes summed by one tree: one reduction a row measured 1.34x the plain read
// on 1 M rows, this 1.10x (docs/BENCHMARKS.md, "Exact search"). kSteps: the rows' 64-byte steps when known
// at compile time (the default 256 dims: the biased query then stays in registers), else 0 (any n;
// the query's steps are loaded for each four rows, the last one masked as in DotI8).
template <size_t kSteps>
void ScanI8Fours(const int8_t* q, const int8_t* rows, size_t n, size_t count, int32_t* out) {
  __m512i fixed[kSteps > 0 ? kSteps : 1];
  for (size_t i = 0; i < kSteps; ++i) fixed[i] = Biased(_mm512_loadu_si512(q + 64 * i));
  size_t r = 0;
  for (; r + 4 <= count; r += 4, rows += 4 * n) {
    Dot d[4];
    size_t i = 0;
    for (; kSteps > 0 ? i < 64 * kSteps : i + 64 <= n; i += 64) {
      const __m512i qb = kSteps > 0 ? fixed[i / 64] : Biased(_mm512_loadu_si512(q + i));
      for (size_t k = 0; k < 4; ++k) d[k].Add(qb, _mm512_loadu_si512(rows + k * n + i));
    }
    if (kSteps == 0 && i < n) {
      const __mmask64 m = FirstBytes(n - i);
      const __m512i qb = Biased(_mm512_maskz_loadu_epi8(m, q + i));
      for (size_t k = 0; k < 4; ++k) d[k].Add(qb, _mm512_maskz_loadu_epi8(m, rows + k * n + i));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + r), SumsOfFour(d[0].Lanes(), d[1].Lanes(), d[2].Lanes(), d[3].Lanes()));
  }
  for (; r < count; ++r, rows += n) out[r] = DotI8(q, rows, n);
}

void ScanI8(const int8_t* q, const int8_t* rows, size_t n, size_t count, int32_t* out) {
  if (n == 256) return ScanI8Fours<4>(q, rows, n, count, out);
  ScanI8Fours<0>(q, rows, n, count, out);
}

// The int8 gather's sums of 32 columns for two rows at a time (gather_i8.h): AVX2's RowPairSums
// twice as wide, in 32 registers, so a 256-dim row is one block of 8. The interleaves work within
// 128-bit quarters: `lo` holds columns 0-3, 8-11, 16-19, 24-27 and `hi` the 4 after each.
struct RowPairSums {
  static constexpr size_t kWidth = 32;
  static constexpr int kMaxBlock = 8;  // 16 of the 32 zmm registers
  __m512i lo, hi;
  static RowPairSums Zero() { return {_mm512_setzero_si512(), _mm512_setzero_si512()}; }
  static __m512i Coefficients(uint32_t ab) { return _mm512_set1_epi32(static_cast<int32_t>(ab)); }
  void Add(const int8_t* r0, const int8_t* r1, __m512i ab) {
    const __m512i x = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r0)));
    const __m512i y = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r1)));
    lo = _mm512_add_epi32(lo, _mm512_madd_epi16(_mm512_unpacklo_epi16(x, y), ab));
    hi = _mm512_add_epi32(hi, _mm512_madd_epi16(_mm512_unpackhi_epi16(x, y), ab));
  }
  void AddTo(float* acc, float unit) const {
    const __m512 u = _mm512_set1_ps(unit);
    // 64-bit lanes of lo (0-7) and hi (8-15) in column order: quarter q of lo, then of hi.
    const __m512i first = _mm512_permutex2var_epi64(lo, _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11), hi);
    const __m512i second = _mm512_permutex2var_epi64(lo, _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15), hi);
    _mm512_storeu_ps(acc, _mm512_add_ps(_mm512_loadu_ps(acc), _mm512_mul_ps(_mm512_cvtepi32_ps(first), u)));
    _mm512_storeu_ps(acc + 16, _mm512_add_ps(_mm512_loadu_ps(acc + 16), _mm512_mul_ps(_mm512_cvtepi32_ps(second), u)));
  }
};

#include "simd/gather_i8.h"

// 256-dim codes, 8 rows (4 registers of 2 rows) a step: XOR, a popcount per 64-bit word, then the
// four words of each row summed by two rounds of lane shuffles and the 8 sums narrowed to 16 bits.
// No software prefetch: the hardware's sequential prefetch is faster (docs/BENCHMARKS.md).
__attribute__((target("avx512vpopcntdq"))) void HammingDistances(const uint64_t* q, const uint64_t* rows,
                                                                 size_t words, size_t count, uint16_t* out) {
  if (words != 4) return impl::HammingDistances(q, rows, words, count, out);
  const __m512i query = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q)));
  // After the two rounds the lanes hold rows 0, 2, 1, 3, 4, 6, 5, 7: put them in order.
  const __m512i order = _mm512_set_epi64(7, 5, 6, 4, 3, 1, 2, 0);
  size_t r = 0;
  for (; r + 8 <= count; r += 8, rows += 32) {
    const __m512i* p = reinterpret_cast<const __m512i*>(rows);
    const __m512i c0 = _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_loadu_si512(p), query));      // rows 0, 1
    const __m512i c1 = _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_loadu_si512(p + 1), query));  // rows 2, 3
    const __m512i c2 = _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_loadu_si512(p + 2), query));  // rows 4, 5
    const __m512i c3 = _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_loadu_si512(p + 3), query));  // rows 6, 7
    // Per 128-bit lane, words 0+1 (or 2+3) of two rows: lanes (row 0 w01, row 2 w01), (0 w23, 2 w23), ...
    const __m512i s01 = _mm512_add_epi64(_mm512_unpacklo_epi64(c0, c1), _mm512_unpackhi_epi64(c0, c1));
    const __m512i s23 = _mm512_add_epi64(_mm512_unpacklo_epi64(c2, c3), _mm512_unpackhi_epi64(c2, c3));
    // Lanes 0 and 2 of each (the w01 halves) plus lanes 1 and 3 (the w23 halves): whole distances.
    const __m512i sums = _mm512_add_epi64(_mm512_shuffle_i64x2(s01, s23, _MM_SHUFFLE(2, 0, 2, 0)),
                                          _mm512_shuffle_i64x2(s01, s23, _MM_SHUFFLE(3, 1, 3, 1)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + r),
                     _mm512_cvtepi64_epi16(_mm512_permutexvar_epi64(order, sums)));
  }
  impl::HammingDistances(q, rows, words, count - r, out + r);
}

}  // namespace

const Kernels& Table() {
  static const Kernels table = [] {
    Kernels k = avx2::kKernels;
    k.name = "avx512";
    k.dot_i8 = DotI8;
    k.scan_i8 = ScanI8;
    k.gather_i8 = GatherI8;
    if (__builtin_cpu_supports("avx512vpopcntdq")) k.hamming_distances = HammingDistances;
    return k;
  }();
  return table;
}

}  // namespace avx512
}  // namespace swe::simd

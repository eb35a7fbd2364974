// Portable C++ (the popcounts compile to one instruction where the target has one: x86 with popcnt,
// chosen at run time; wasm's i64.popcnt), plus AVX2 and AVX-512 (VPOPCNTDQ) scans for x86, chosen at
// run time: the scan reads 32 MB per million 256-dim codes and must keep up with memory.
#include "hamming.h"

#include <algorithm>

#include "simd/pick.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "simd/immintrin_avx512.h"
#define SWE_HAMMING_X86 1
#endif

namespace swe::hamming {
namespace {

constexpr size_t kBlock = 1024;  // distances computed per pass, kept in L1
constexpr size_t kGroup = 64;    // distances tested against the bound at once

// out[r] = popcount(q ^ row r); inlined into each target's copy below.
[[gnu::always_inline]] inline void Scan(const uint64_t* q, const uint64_t* rows, size_t words, size_t count,
                                        uint16_t* out) {
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

void ScanPortable(const uint64_t* q, const uint64_t* rows, size_t words, size_t count, uint16_t* out) {
  Scan(q, rows, words, count, out);
}

#ifdef SWE_HAMMING_X86
__attribute__((target("popcnt"))) void ScanPopcnt(const uint64_t* q, const uint64_t* rows, size_t words,
                                                  size_t count, uint16_t* out) {
  Scan(q, rows, words, count, out);
}

// 256-dim codes, 8 rows (4 registers of 2 rows) a step: XOR, a popcount per 64-bit word, then the
// four words of each row summed by two rounds of lane shuffles and the 8 sums narrowed to 16 bits.
// No software prefetch, here or in Scan: the hardware's sequential prefetch is faster (docs/BENCHMARKS.md).
__attribute__((target("popcnt,avx512f,avx512vpopcntdq"))) void ScanAvx512(const uint64_t* q, const uint64_t* rows,
                                                                            size_t words, size_t count,
                                                                            uint16_t* out) {
  if (words != 4) return Scan(q, rows, words, count, out);
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
  Scan(q, rows, words, count - r, out + r);
}

// 256-dim codes, 8 rows a step, for x86 without VPOPCNTDQ: per-byte popcounts by a 16-entry table
// (`vpshufb` on each nibble), the bytes of a row summed by `vpsadbw`. Rows are paired first (word 0 of
// rows a and b in one register, word 1 in another) so that one table pass and one `vpsadbw` serve two
// rows, and the 4 words of a row meet in 2 qword sums, added across the 128-bit halves. (GCC gives
// lambdas no target attribute, hence the small functions.)
#define SWE_AVX2 __attribute__((target("popcnt,avx2"), always_inline)) inline
SWE_AVX2 __m256i ByteBits(__m256i x) {  // popcount of each byte
  const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,  //
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  return _mm256_add_epi8(_mm256_shuffle_epi8(table, _mm256_and_si256(x, nibble)),
                         _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble)));
}
// Qwords (a's words 0+1, b's 0+1 | a's 2+3, b's 2+3) of the distances of rows a, b at p and p + 4.
SWE_AVX2 __m256i PairHalves(const uint64_t* p, __m256i query) {
  const __m256i a = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), query);
  const __m256i b = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 4)), query);
  return _mm256_sad_epu8(_mm256_add_epi8(ByteBits(_mm256_unpacklo_epi64(a, b)), ByteBits(_mm256_unpackhi_epi64(a, b))),
                         _mm256_setzero_si256());
}
// Qwords (a, b | c, d): the distances of the 4 rows at p.
SWE_AVX2 __m256i Quad(const uint64_t* p, __m256i query) {
  const __m256i ab = PairHalves(p, query), cd = PairHalves(p + 8, query);
  return _mm256_add_epi64(_mm256_permute2x128_si256(ab, cd, 0x20), _mm256_permute2x128_si256(ab, cd, 0x31));
}
__attribute__((target("popcnt,avx2"))) void ScanAvx2(const uint64_t* q, const uint64_t* rows, size_t words,
                                                     size_t count, uint16_t* out) {
  if (words != 4) return Scan(q, rows, words, count, out);
  const __m256i query = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
  size_t r = 0;
  for (; r + 8 <= count; r += 8, rows += 32) {
    // Unlike the AVX-512 scan, this one needs a software prefetch, and far ahead: its arithmetic takes
    // almost as long as the memory, and alone the hardware's prefetch falls behind (docs/BENCHMARKS.md).
    // 8 KB ahead: 1-4 KB gained less. An address, not a pointer: it may lie past the end.
    const uintptr_t ahead = reinterpret_cast<uintptr_t>(rows) + 8192;
    for (uintptr_t line = 0; line < 256; line += 64) __builtin_prefetch(reinterpret_cast<const void*>(ahead + line));
    // Dwords (0, 1, 4, 5 | 2, 3, 6, 7) after the pack (each distance ≤ 256, the upper dwords 0),
    // put in order and narrowed to 16 bits.
    const __m256i packed = _mm256_permutevar8x32_epi32(_mm256_packus_epi32(Quad(rows, query), Quad(rows + 16, query)),
                                                       _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + r),
                     _mm_packus_epi32(_mm256_castsi256_si128(packed), _mm256_extracti128_si256(packed, 1)));
  }
  Scan(q, rows, words, count - r, out + r);
}
#undef SWE_AVX2

#endif

// Best last; SWE_HAMMING=<name> picks one (for benchmarks), as SWE_SIMD does for the other kernels.
std::vector<ScanKernel> FindScans() {
  std::vector<ScanKernel> scans{{"portable", ScanPortable}};
#ifdef SWE_HAMMING_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("popcnt")) scans.push_back({"popcnt", ScanPopcnt});
  if (__builtin_cpu_supports("popcnt") && __builtin_cpu_supports("avx2")) scans.push_back({"avx2", ScanAvx2});
  if (__builtin_cpu_supports("popcnt") && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512vpopcntdq")) {
    scans.push_back({"avx512", ScanAvx512});
  }
#endif
  return scans;
}

const ScanKernel& ActiveScan() {
  static const ScanKernel active = simd::PickByName(FindScans(), "SWE_HAMMING");
  return active;
}

}  // namespace

std::vector<ScanKernel> SupportedScans() { return FindScans(); }
const char* ActiveScanName() { return ActiveScan().name; }

void SignBits(const float* x, const float* center, size_t n, uint64_t* out) {
  std::fill(out, out + Words(n), 0);
  for (size_t j = 0; j < n; ++j) out[j / 64] |= uint64_t{x[j] > (center ? center[j] : 0.0f)} << (j % 64);
}

void SignBits(const int8_t* x, float scale, const float* center, size_t n, uint64_t* out) {
  std::fill(out, out + Words(n), 0);
  for (size_t j = 0; j < n; ++j) {
    out[j / 64] |= uint64_t{static_cast<float>(x[j]) * scale > (center ? center[j] : 0.0f)} << (j % 64);
  }
}

// One pass in blocks: a row is kept while its distance is below the m-th best so far (a later row
// loses a tie, having the higher position); the kept ones are cut back to the m best whenever they
// reach 2m. Keys are (distance << 32 | position), so the order is total and the result exact.
void Nearest(const uint64_t* query, const uint64_t* rows, size_t words, size_t count, size_t m,
             std::vector<uint32_t>* out) {
  out->clear();
  if (m == 0) return;
  const auto distances = ActiveScan().distances;
  std::vector<uint64_t> kept;
  kept.reserve(2 * m + kBlock);
  uint64_t bound = UINT64_MAX;  // a row enters when its distance is below this
  uint16_t d[kBlock];
  auto cut = [&] {
    std::nth_element(kept.begin(), kept.begin() + (m - 1), kept.end());
    kept.resize(m);
    bound = kept[m - 1] >> 32;  // the m-th best distance so far; later rows need less
  };
  for (size_t start = 0; start < count; start += kBlock) {
    const size_t n = std::min(kBlock, count - start);
    distances(query, rows + start * words, words, n, d);
    // Most groups have no row below the bound: one vectorised test each. Distances are at most 64 ·
    // words ≤ 16,384 (the index's dims limit), so signed 16-bit compares are exact, and they vectorise
    // to one compare a vector (SSE2 has no unsigned one).
    const int16_t limit = static_cast<int16_t>(std::min<uint64_t>(bound, INT16_MAX));
    for (size_t g = 0; g < n; g += kGroup) {
      const size_t end = std::min(n, g + kGroup);
      int16_t below = 0;
      for (size_t r = g; r < end; ++r) below |= static_cast<int16_t>(static_cast<int16_t>(d[r]) < limit);
      if (below == 0) continue;
      for (size_t r = g; r < end; ++r) {
        if (d[r] < bound) kept.push_back(uint64_t{d[r]} << 32 | (start + r));
      }
    }
    if (kept.size() >= 2 * m) cut();
  }
  if (kept.size() > m) cut();
  std::sort(kept.begin(), kept.end());
  for (uint64_t key : kept) out->push_back(static_cast<uint32_t>(key));
}

}  // namespace swe::hamming

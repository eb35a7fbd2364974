// The tokenizer's inner loop: how far a run of ASCII letters and digits goes, 16 bytes at a time.
// A word of the usual text is such a run; the byte after it (a space, punctuation, a non-ASCII
// character) is for the caller to classify.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace swe {

// Whether an ASCII byte is a letter or digit.
constexpr bool IsAsciiAlnum(uint8_t b) {
  return static_cast<uint8_t>(b - '0') < 10 || static_cast<uint8_t>((b | 0x20) - 'a') < 26;
}

// The length of the run of ASCII letters and digits that starts p[0..n); sets *upper when the run has
// a capital (A-Z), leaves it as is otherwise. Reads only p[0..n).
inline size_t AsciiAlnumRun(const char* p, size_t n, bool* upper) {
  size_t i = 0;
#if defined(__SSE2__) || defined(__wasm_simd128__)
  for (; i + 16 <= n; i += 16) {
#if defined(__SSE2__)
    // Unsigned x < limit as min(x, limit - 1) == x: SSE2 compares bytes as signed only.
    const auto below = [](__m128i x, int limit) {
      return _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(static_cast<char>(limit - 1))), x);
    };
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i digit = below(_mm_sub_epi8(v, _mm_set1_epi8('0')), 10);
    const __m128i letter = below(_mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('a')), 26);
    const __m128i capital = below(_mm_sub_epi8(v, _mm_set1_epi8('A')), 26);
    const uint32_t other = ~static_cast<uint32_t>(_mm_movemask_epi8(_mm_or_si128(digit, letter))) & 0xFFFF;
    const uint32_t capitals = static_cast<uint32_t>(_mm_movemask_epi8(capital));
#else
    const v128_t v = wasm_v128_load(p + i);
    const v128_t digit = wasm_u8x16_lt(wasm_i8x16_sub(v, wasm_i8x16_splat('0')), wasm_i8x16_splat(10));
    const v128_t letter =
        wasm_u8x16_lt(wasm_i8x16_sub(wasm_v128_or(v, wasm_i8x16_splat(0x20)), wasm_i8x16_splat('a')), wasm_i8x16_splat(26));
    const v128_t capital = wasm_u8x16_lt(wasm_i8x16_sub(v, wasm_i8x16_splat('A')), wasm_i8x16_splat(26));
    const uint32_t other = ~static_cast<uint32_t>(wasm_i8x16_bitmask(wasm_v128_or(digit, letter))) & 0xFFFF;
    const uint32_t capitals = static_cast<uint32_t>(wasm_i8x16_bitmask(capital));
#endif
    if (other != 0) {
      const uint32_t length = static_cast<uint32_t>(__builtin_ctz(other));
      if (capitals & ((1u << length) - 1)) *upper = true;
      return i + length;
    }
    if (capitals != 0) *upper = true;
  }
#endif
  for (; i < n; ++i) {
    const auto b = static_cast<uint8_t>(p[i]);
    if (!IsAsciiAlnum(b)) break;
    if (static_cast<uint8_t>(b - 'A') < 26) *upper = true;
  }
  return i;
}

}  // namespace swe

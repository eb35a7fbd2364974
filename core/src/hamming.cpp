// Portable C++ (the popcounts compile to one instruction where the target has one: x86 with popcnt,
// chosen at run time; wasm's i64.popcnt), not in simd/: it needs no vector type.
#include "hamming.h"

#include <algorithm>

namespace swe::hamming {
namespace {

constexpr size_t kBlock = 1024;  // distances computed per pass, kept in L1

// out[r] = popcount(q ^ row r); inlined into each target's copy below.
[[gnu::always_inline]] inline void Scan(const uint64_t* q, const uint64_t* rows, size_t words, size_t count,
                                        uint16_t* out) {
  if (words == 4) {  // 256 dims, the default model: unrolled
    for (size_t r = 0; r < count; ++r, rows += 4) {
      __builtin_prefetch(rows + 128);  // 1 KB ahead: keeps more lines in flight than the hardware does
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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("popcnt"))) void ScanPopcnt(const uint64_t* q, const uint64_t* rows, size_t words,
                                                  size_t count, uint16_t* out) {
  Scan(q, rows, words, count, out);
}
bool HavePopcnt() {
  static const bool have = (__builtin_cpu_init(), __builtin_cpu_supports("popcnt"));
  return have;
}
#endif

void Distances(const uint64_t* q, const uint64_t* rows, size_t words, size_t count, uint16_t* out) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (HavePopcnt()) return ScanPopcnt(q, rows, words, count, out);
#endif
  Scan(q, rows, words, count, out);
}

}  // namespace

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
    Distances(query, rows + start * words, words, n, d);
    for (size_t r = 0; r < n; ++r) {
      if (d[r] < bound) kept.push_back(uint64_t{d[r]} << 32 | (start + r));
    }
    if (kept.size() >= 2 * m) cut();
  }
  if (kept.size() > m) cut();
  std::sort(kept.begin(), kept.end());
  for (uint64_t key : kept) out->push_back(static_cast<uint32_t>(key));
}

}  // namespace swe::hamming

// Binary codes: sign bits and the selection of the nearest; the distance scan is a kernel
// (simd/kernels.h: portable, AVX2, AVX-512 VPOPCNTDQ, NEON), chosen with the other kernels.
#include "hamming.h"

#include <algorithm>

#include "simd/kernels.h"

namespace swe::hamming {
namespace {

constexpr size_t kBlock = 1024;  // distances computed per pass, kept in L1
constexpr size_t kGroup = 64;    // distances tested against the bound at once

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
  const size_t one_chunk = (count / kBlock + 1) * kBlock;
  Nearest(query, &rows, one_chunk, words, count, m, out);
}

void Nearest(const uint64_t* query, const uint64_t* const* chunks, size_t chunk_rows, size_t words, size_t count,
             size_t m, std::vector<uint32_t>* out) {
  out->clear();
  if (m == 0) return;
  const auto distances = simd::Active().hamming_distances;
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
    distances(query, chunks[start / chunk_rows] + (start % chunk_rows) * words, words, n, d);  // a block is in one chunk
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

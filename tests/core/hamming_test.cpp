// The binary codes' distance scans: every variant this CPU runs gives a plain loop's distances (row
// counts around the unrolled steps, code widths other than 256 bits), and Nearest keeps exactly the m
// smallest (distance, position) pairs.
#include "hamming.h"
#include "simd/kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

namespace swe::hamming {
namespace {

std::vector<uint64_t> RandomWords(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> out(n);
  for (uint64_t& w : out) w = rng();
  return out;
}

uint16_t Reference(const uint64_t* q, const uint64_t* row, size_t words) {
  uint16_t d = 0;
  for (size_t w = 0; w < words; ++w) {
    for (int b = 0; b < 64; ++b) d += ((q[w] ^ row[w]) >> b) & 1;
  }
  return d;
}

TEST(Hamming, EveryScanGivesTheSameDistances) {
  const std::vector<const simd::Kernels*> scans = simd::Supported();
  std::printf("scans:");
  for (const simd::Kernels* s : scans) std::printf(" %s", s->name);
  std::printf(" (in use: %s)\n", simd::Active().name);
  for (size_t words : {1, 2, 3, 4, 5, 256}) {
    for (size_t count : {0, 1, 7, 8, 9, 15, 16, 17, 63, 1000}) {
      const std::vector<uint64_t> q = RandomWords(words, 1), rows = RandomWords(words * count, 2 + count);
      std::vector<uint16_t> want(count);
      for (size_t r = 0; r < count; ++r) want[r] = Reference(q.data(), rows.data() + r * words, words);
      for (const simd::Kernels* s : scans) {
        std::vector<uint16_t> got(count + 1, 0xffff);  // one past the end: must stay untouched
        s->hamming_distances(q.data(), rows.data(), words, count, got.data());
        EXPECT_EQ(got[count], 0xffff) << s->name;
        got.resize(count);
        EXPECT_EQ(got, want) << s->name << " words " << words << " count " << count;
      }
    }
  }
  // The extremes: identical rows (0) and complements (every bit).
  const std::vector<uint64_t> q = RandomWords(4, 9);
  std::vector<uint64_t> rows;
  for (int r = 0; r < 16; ++r) {
    for (uint64_t w : q) rows.push_back(r % 2 ? ~w : w);
  }
  for (const simd::Kernels* s : scans) {
    std::vector<uint16_t> got(16);
    s->hamming_distances(q.data(), rows.data(), 4, 16, got.data());
    for (int r = 0; r < 16; ++r) EXPECT_EQ(got[r], r % 2 ? 256 : 0) << s->name;
  }
}

TEST(Hamming, NearestKeepsTheSmallestDistancesLowerPositionsFirst) {
  const size_t words = 4, count = 5000;  // crosses the scan's blocks of 1024 rows
  const std::vector<uint64_t> q = RandomWords(words, 3);
  std::vector<uint64_t> rows = RandomWords(words * count, 4);
  for (size_t r = 100; r < count; r += 97) std::copy_n(rows.data() + 50 * words, words, rows.data() + r * words);  // ties
  std::vector<std::pair<uint16_t, uint32_t>> all(count);
  for (size_t r = 0; r < count; ++r) all[r] = {Reference(q.data(), rows.data() + r * words, words), uint32_t(r)};
  std::sort(all.begin(), all.end());
  for (size_t m : {1, 10, 60, 1500, 5000, 6000}) {
    std::vector<uint32_t> got;
    Nearest(q.data(), rows.data(), words, count, m, &got);
    ASSERT_EQ(got.size(), std::min(m, count));
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], all[i].second) << "m " << m << " rank " << i;
  }
}

}  // namespace
}  // namespace swe::hamming

// RankRows: rows ranked exactly as an f32 Index holding them ranks them (the same hits, scores bit for
// bit), over more rows than one scan block, with ties, zero rows, a score floor and every k.
#include "swe/rank.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/test_models.h"
#include "swe/index.h"

namespace swe {
namespace {

constexpr uint32_t kDims = 24;

std::vector<float> RandomRows(size_t n, uint32_t seed) { return testing::RandomVectors(n, kDims, seed); }

std::vector<SearchHit> Rank(const float* query, const std::vector<float>& rows, size_t k, float min_score) {
  std::vector<SearchHit> hits;
  Status s = RankRows(query, rows.data(), rows.size() / kDims, kDims, k, min_score, &hits);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return hits;
}

void ExpectSameHits(const std::vector<SearchHit>& a, const std::vector<SearchHit>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id) << i;
    EXPECT_EQ(std::memcmp(&a[i].score, &b[i].score, sizeof(float)), 0) << i << ": " << a[i].score << " " << b[i].score;
  }
}

TEST(RankRows, EqualsAnF32IndexOfTheRows) {
  const size_t n = 2500;  // more than one block of the scan
  std::vector<float> rows = RandomRows(n, 1);
  for (size_t j = 0; j < kDims; ++j) {
    rows[700 * kDims + j] = rows[3 * kDims + j] * 4.0f;  // the same direction: a tie, broken by row
    rows[1800 * kDims + j] = 0.0f;                       // a zero row: score 0
  }
  std::unique_ptr<Index> index;
  ASSERT_TRUE(Index::Create(kDims, DType::kF32, &index).ok());
  for (size_t i = 0; i < n; ++i) ASSERT_TRUE(index->Add(i, rows.data() + i * kDims).ok());
  const std::vector<float> queries = RandomRows(4, 2);
  for (size_t q = 0; q < 5; ++q) {
    const float* query = q < 4 ? queries.data() + q * kDims : rows.data() + 3 * kDims;
    for (size_t k : {size_t{1}, size_t{10}, size_t{1024}, n, n + 7}) {
      std::vector<SearchHit> expected;
      ASSERT_TRUE(index->Search(query, k, &expected).ok());
      ExpectSameHits(Rank(query, rows, k, -INFINITY), expected);
      // A floor keeps the hits scoring at least it, in the same order.
      std::vector<SearchHit> above;
      for (const SearchHit& h : expected) {
        if (h.score >= 0.1f) above.push_back(h);
      }
      ExpectSameHits(Rank(query, rows, k, 0.1f), above);
    }
  }
  const std::vector<SearchHit> tie = Rank(rows.data() + 3 * kDims, rows, 2, -INFINITY);
  EXPECT_EQ(tie[0].id, 3u);
  EXPECT_EQ(tie[1].id, 700u);
  EXPECT_EQ(tie[0].score, tie[1].score);
  bool zero_seen = false;
  for (const SearchHit& h : Rank(queries.data(), rows, n, -INFINITY)) {
    if (h.id == 1800) zero_seen = h.score == 0.0f;
  }
  EXPECT_TRUE(zero_seen);
}

TEST(RankRows, EdgesAndRefusals) {
  std::vector<float> rows = RandomRows(5, 3);
  std::vector<SearchHit> hits;
  EXPECT_TRUE(RankRows(rows.data(), rows.data(), 5, kDims, 0, -INFINITY, &hits).ok());
  EXPECT_TRUE(hits.empty());
  EXPECT_TRUE(RankRows(rows.data(), nullptr, 0, kDims, 3, -INFINITY, &hits).ok());
  EXPECT_TRUE(hits.empty());
  EXPECT_TRUE(Rank(rows.data(), rows, 3, 2.0f).empty());  // nothing scores above 1
  rows[2 * kDims + 5] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(RankRows(rows.data() + kDims, rows.data(), 5, kDims, 3, -INFINITY, &hits).ok());
  rows[2 * kDims + 5] = INFINITY;
  EXPECT_FALSE(RankRows(rows.data() + kDims, rows.data(), 5, kDims, 3, -INFINITY, &hits).ok());
  EXPECT_FALSE(RankRows(rows.data() + 2 * kDims, rows.data(), 2, kDims, 3, -INFINITY, &hits).ok());  // the query
  EXPECT_FALSE(RankRows(nullptr, rows.data(), 2, kDims, 3, -INFINITY, &hits).ok());
}

}  // namespace
}  // namespace swe

// Index::SearchBinary: with every vector a candidate it is Search; codes are kept only once
// EnableBinary made them (a search without them codes the rows for itself), follow Add and Remove, and
// are re-centred as the index grows.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <vector>

#include "swe/index.h"

namespace swe {
namespace {

// Vectors with a large shared component, as sentence embeddings have.
std::vector<float> OffsetVectors(size_t n, uint32_t dims, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> offset(dims), out(n * dims);
  for (float& v : offset) v = 2 * normal(rng);
  for (size_t i = 0; i < n * dims; ++i) out[i] = offset[i % dims] + normal(rng);
  return out;
}

void ExpectSame(const Index& index, const float* query, size_t k) {
  std::vector<SearchHit> exact, binary;
  ASSERT_TRUE(index.Search(query, k, &exact).ok());
  ASSERT_TRUE(index.SearchBinary(query, k, index.size(), &binary).ok());
  ASSERT_EQ(exact.size(), binary.size());
  for (size_t i = 0; i < exact.size(); ++i) {
    EXPECT_EQ(exact[i].id, binary[i].id);
    EXPECT_EQ(exact[i].score, binary[i].score);  // the same scores, bit for bit
  }
}

TEST(IndexBinary, AllCandidatesIsExactSearch) {
  const uint32_t dims = 100;  // not a multiple of 64
  const std::vector<float> v = OffsetVectors(600, dims, 1), q = OffsetVectors(5, dims, 2);
  for (DType dtype : {DType::kF32, DType::kInt8}) {
    std::unique_ptr<Index> index;
    ASSERT_TRUE(Index::Create(dims, dtype, &index).ok());
    for (uint64_t i = 0; i < 600; ++i) ASSERT_TRUE(index->Add(i * 3, v.data() + i * dims).ok());
    for (size_t j = 0; j < 5; ++j) ExpectSame(*index, q.data() + j * dims, 10);
    index->EnableBinary();
    for (uint64_t i = 0; i < 600; i += 7) ASSERT_TRUE(index->Remove(i * 3).ok());
    ASSERT_TRUE(index->Add(5, v.data()).ok());
    for (size_t j = 0; j < 5; ++j) ExpectSame(*index, q.data() + j * dims, 10);
    std::vector<uint8_t> file;
    ASSERT_TRUE(index->Save(&file).ok());
    std::unique_ptr<Index> loaded;
    ASSERT_TRUE(Index::Load(file.data(), file.size(), &loaded).ok());
    EXPECT_FALSE(loaded->binary_enabled());  // codes are not saved
    for (size_t j = 0; j < 5; ++j) ExpectSame(*loaded, q.data() + j * dims, 10);
    std::vector<SearchHit> hits;
    EXPECT_FALSE(index->SearchBinary(q.data(), 10, 9, &hits).ok());  // fewer candidates than k
    EXPECT_TRUE(index->SearchBinary(q.data(), 10, 10, &hits).ok());
    EXPECT_EQ(hits.size(), 10u);
    // Candidates past the index's size (even SIZE_MAX) mean all of them: exact search.
    std::vector<SearchHit> exact, all;
    ASSERT_TRUE(index->Search(q.data(), 10, &exact).ok());
    ASSERT_TRUE(index->SearchBinary(q.data(), 10, SIZE_MAX, &all).ok());
    ASSERT_EQ(all.size(), exact.size());
    for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].id, exact[i].id);
  }
}

double Recall(const Index& index, const std::vector<float>& q, size_t nq) {
  const uint32_t dims = index.dims();
  size_t found = 0;
  for (size_t j = 0; j < nq; ++j) {
    std::vector<SearchHit> exact, binary;
    EXPECT_TRUE(index.Search(q.data() + j * dims, 10, &exact).ok());
    EXPECT_TRUE(index.SearchBinary(q.data() + j * dims, 10, 200, &binary).ok());
    std::set<uint64_t> truth;
    for (const SearchHit& h : exact) truth.insert(h.id);
    for (const SearchHit& h : binary) found += truth.count(h.id);
  }
  return double(found) / (10 * nq);
}

TEST(IndexBinary, CodesOnlyWhenUsed) {
  const uint32_t dims = 256;
  const size_t n = 1000;
  const std::vector<float> v = OffsetVectors(n, dims, 5);
  std::unique_ptr<Index> index;
  ASSERT_TRUE(Index::Create(dims, DType::kInt8, &index).ok());
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(index->Add(i, v.data() + i * dims).ok());
  std::vector<SearchHit> hits;
  ASSERT_TRUE(index->Search(v.data(), 10, &hits).ok());
  EXPECT_FALSE(index->binary_enabled());
  const size_t without = index->MemoryBytes();
  std::vector<SearchHit> before;  // without codes kept, a search codes every row for itself
  ASSERT_TRUE(index->SearchBinary(v.data(), 10, 100, &before).ok());
  EXPECT_FALSE(index->binary_enabled());
  EXPECT_EQ(index->MemoryBytes(), without);
  index->EnableBinary();
  EXPECT_TRUE(index->binary_enabled());
  ASSERT_TRUE(index->SearchBinary(v.data(), 10, 100, &hits).ok());
  const size_t with = index->MemoryBytes();
  std::printf("index of %zu int8 x %u: %zu bytes without codes, %zu with (+%.1f%%)\n", n, dims, without, with,
              100.0 * (with - without) / without);
  EXPECT_GE(with - without, n * dims / 8);  // 1 bit a dimension, only now
  EXPECT_LE(with - without, (n + 1023) / 1024 * 1024 * dims / 8 + dims * 4);  // codes by chunks of 1,024 rows
  ASSERT_EQ(hits.size(), 10u);
  EXPECT_EQ(hits[0].id, 0u);  // the query is vector 0
  ASSERT_EQ(before.size(), hits.size());
  for (size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(before[i].id, hits[i].id);
}

TEST(IndexBinary, CentredOnTheMeanAndRecentredAsItGrows) {
  const uint32_t dims = 128;
  const size_t n = 4000, nq = 20;
  const std::vector<float> v = OffsetVectors(n, dims, 3), q = OffsetVectors(nq, dims, 4);
  std::unique_ptr<Index> grown, built;
  ASSERT_TRUE(Index::Create(dims, DType::kInt8, &grown).ok());
  ASSERT_TRUE(Index::Create(dims, DType::kInt8, &built).ok());
  // `grown` has its codes from the start (centred on nothing, then on 1, 2, 4, ... vectors);
  // `built` gets them after the last Add, centred on all 4000.
  grown->EnableBinary();
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(grown->Add(i, v.data() + i * dims).ok());
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(built->Add(i, v.data() + i * dims).ok());
  const double grown_recall = Recall(*grown, q, nq), built_recall = Recall(*built, q, nq);
  // Random normal vectors are the codes' worst case (no structure): far from the 0.95 on real ones.
  EXPECT_GE(built_recall, 0.4);
  EXPECT_GE(grown_recall, built_recall - 0.05) << built_recall;
}

}  // namespace
}  // namespace swe

// Copies of an index and of its documents are versions (index.h, shared_map.h): a copy shares the
// rows, the id map, the codes and the documents, and changes to the original (adds, replacements,
// removals across chunks, new codes) never show in it; the original ends exactly as an index that was
// never copied.
#include <gtest/gtest.h>

#include <vector>

#include "swe/index.h"
#include "swe/index_docs.h"
#include "core/test_models.h"

namespace swe {
namespace {

constexpr uint32_t kDims = 24;

std::vector<float> Vector(uint64_t seed) { return testing::RandomVectors(1, kDims, static_cast<uint32_t>(seed)); }

std::vector<uint8_t> Bytes(const Index& index, const IndexDocs* docs = nullptr) {
  std::vector<uint8_t> out;
  EXPECT_TRUE(index.Save(&out, 0, docs).ok());
  return out;
}

std::vector<SearchHit> Binary(const Index& index, uint64_t seed) {
  std::vector<SearchHit> hits;
  EXPECT_TRUE(index.SearchBinary(Vector(seed).data(), 10, 200, &hits).ok());
  return hits;
}

// Changes touching every chunk of a 3,000-row index: removals (the last row moves into each hole),
// replacements, and adds that open a fourth chunk.
void Change(Index* index, uint64_t round) {
  for (uint64_t id : {5ull, 1500ull, 2950ull, 1023ull, 1030ull}) ASSERT_TRUE(index->Remove(id + 10 * round).ok());
  for (uint64_t id : {7ull, 1100ull, 2500ull}) ASSERT_TRUE(index->Add(id + round, Vector(id * 31 + round).data()).ok());
  for (uint64_t i = 0; i < 1100; ++i) ASSERT_TRUE(index->Add(10000 + round * 5000 + i, Vector(i + round).data()).ok());
}

class IndexVersionTest : public ::testing::TestWithParam<DType> {};

TEST_P(IndexVersionTest, ChangesNeverShowInACopy) {
  std::unique_ptr<Index> index, plain;
  ASSERT_TRUE(Index::Create(kDims, GetParam(), &index).ok());
  ASSERT_TRUE(Index::Create(kDims, GetParam(), &plain).ok());
  for (uint64_t id = 0; id < 3000; ++id) {
    ASSERT_TRUE(index->Add(id, Vector(id).data()).ok());
    ASSERT_TRUE(plain->Add(id, Vector(id).data()).ok());
  }
  index->EnableBinary();
  plain->EnableBinary();
  std::vector<Index> versions;
  std::vector<std::vector<uint8_t>> saved;
  std::vector<std::vector<SearchHit>> found;
  for (uint64_t round = 0; round < 3; ++round) {
    versions.emplace_back(*index);  // a version, then the original changes
    saved.push_back(Bytes(*index));
    found.push_back(Binary(*index, 77));
    Change(index.get(), round);
    Change(plain.get(), round);
  }
  for (size_t v = 0; v < versions.size(); ++v) {
    EXPECT_EQ(Bytes(versions[v]), saved[v]) << "version " << v;
    const std::vector<SearchHit> hits = Binary(versions[v], 77);
    ASSERT_EQ(hits.size(), found[v].size());
    for (size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i].id, found[v][i].id);
  }
  EXPECT_EQ(Bytes(*index), Bytes(*plain));
  EXPECT_EQ(index->ids(), plain->ids());
  const std::vector<SearchHit> a = Binary(*index, 5), b = Binary(*plain, 5);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].id, b[i].id);
}

// A chunk that was full (not the last) when a copy was made, and then became the last by removals
// from the end, which write nothing: an add there writes a row the copy reads, so it writes a copy.
TEST_P(IndexVersionTest, AppendIntoAChunkThatWasFullWhenCopied) {
  std::unique_ptr<Index> index;
  ASSERT_TRUE(Index::Create(kDims, GetParam(), &index).ok());
  for (uint64_t id = 0; id < 1100; ++id) ASSERT_TRUE(index->Add(id, Vector(id).data()).ok());
  index->EnableBinary();
  const Index copy(*index);
  const std::vector<uint8_t> saved = Bytes(copy);
  const std::vector<SearchHit> found = Binary(copy, 3);
  for (uint64_t id = 1100; id-- > 1020;) ASSERT_TRUE(index->Remove(id).ok());  // the last row each time
  for (uint64_t id = 5000; id < 5010; ++id) ASSERT_TRUE(index->Add(id, Vector(id).data()).ok());
  EXPECT_EQ(Bytes(copy), saved);
  const std::vector<SearchHit> hits = Binary(copy, 3);
  ASSERT_EQ(hits.size(), found.size());
  for (size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i].id, found[i].id);
}

TEST(IndexDocsVersion, ChangesNeverShowInACopy) {
  IndexDocs docs;
  for (uint64_t e = 0; e < 5000; ++e) ASSERT_TRUE(docs.Put(e, {"id" + std::to_string(e), "text", ""}).ok());
  const IndexDocs copy = docs;
  ASSERT_TRUE(docs.Put(3, {"id3", "new text", "{}"}).ok());
  docs.Erase(4);
  ASSERT_TRUE(docs.Put(9000, {"id4", "", ""}).ok());  // the id another entry had in the copy
  EXPECT_EQ(copy.Get(3)->text, "text");
  ASSERT_NE(copy.Get(4), nullptr);
  uint64_t entry = 0;
  ASSERT_TRUE(copy.Find("id4", &entry));
  EXPECT_EQ(entry, 4u);
  EXPECT_EQ(copy.Get(9000), nullptr);
  EXPECT_EQ(copy.size(), 5000u);
  EXPECT_EQ(docs.Get(3)->text, "new text");
  ASSERT_TRUE(docs.Find("id4", &entry));
  EXPECT_EQ(entry, 9000u);
  EXPECT_EQ(docs.size(), 5000u);
}

INSTANTIATE_TEST_SUITE_P(Both, IndexVersionTest, ::testing::Values(DType::kF32, DType::kInt8),
                         [](const auto& info) { return info.param == DType::kF32 ? "f32" : "int8"; });

}  // namespace
}  // namespace swe

// An index's documents: IndexDocs' rules, and the reader's checks of the documents in a file.
#include "swe/index_docs.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "container.h"
#include "swe/index.h"

namespace swe {
namespace {

TEST(IndexDocs, PutGetFindErase) {
  IndexDocs docs;
  ASSERT_TRUE(docs.Put(3, {"a", "text a", "{}"}).ok());
  ASSERT_TRUE(docs.Put(5, {"b", "", ""}).ok());
  uint64_t entry = 0;
  ASSERT_TRUE(docs.Find("b", &entry));
  EXPECT_EQ(entry, 5u);
  EXPECT_EQ(docs.Get(3)->text, "text a");
  EXPECT_EQ(docs.Get(4), nullptr);
  EXPECT_TRUE(docs.has_texts());
  EXPECT_TRUE(docs.has_metadata());
  // Replacing an entry's document frees its old id.
  ASSERT_TRUE(docs.Put(3, {"c", "", ""}).ok());
  EXPECT_FALSE(docs.Find("a", &entry));
  EXPECT_FALSE(docs.has_texts());
  EXPECT_EQ(docs.Put(7, {"b", "", ""}).code(), StatusCode::kInvalidArgument);  // b is entry 5's
  EXPECT_EQ(docs.Put(7, {"", "", ""}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(docs.Put(7, {"x", "\xc3", ""}).code(), StatusCode::kInvalidArgument);
  docs.Erase(5);
  EXPECT_FALSE(docs.Find("b", &entry));
  EXPECT_EQ(docs.size(), 1u);
}

// The file of an index of entries 10 and 11 with one document for `entry`.
std::vector<uint8_t> FileWithDoc(uint64_t entry, IndexDoc doc) {
  std::unique_ptr<Index> index;
  EXPECT_TRUE(Index::Create(2, DType::kF32, &index).ok());
  const float a[2] = {1, 0}, b[2] = {0, 1};
  EXPECT_TRUE(index->Add(10, a).ok());
  EXPECT_TRUE(index->Add(11, b).ok());
  IndexDocs docs;
  EXPECT_TRUE(docs.Put(entry, std::move(doc)).ok());
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(index->Save(&bytes, 3, &docs).ok());
  return bytes;
}

TEST(IndexDocs, RoundTripAndSkippedWhenNotAsked) {
  std::vector<uint8_t> bytes = FileWithDoc(11, {"eleven", "", "{\"x\": [1]}"});
  std::unique_ptr<Index> loaded;
  IndexDocs read;
  ASSERT_TRUE(Index::Load(bytes.data(), bytes.size(), &loaded, ReadLimits(), &read).ok());
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read.Get(11)->id, "eleven");
  EXPECT_EQ(read.Get(11)->metadata, "{\"x\": [1]}");
  EXPECT_EQ(read.Get(10), nullptr);
  ASSERT_TRUE(Index::Load(bytes.data(), bytes.size(), &loaded).ok());  // vectors only
  EXPECT_EQ(loaded->size(), 2u);
}

TEST(IndexDocs, ReaderRefusesADocumentOfNoEntry) {
  std::vector<uint8_t> bytes = FileWithDoc(12, {"twelve", "", ""});  // 12 is no entry
  std::unique_ptr<Index> loaded;
  IndexDocs read;
  Status s = Index::Load(bytes.data(), bytes.size(), &loaded, ReadLimits(), &read);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("names no entry"), std::string::npos) << s.message();
  EXPECT_EQ(loaded, nullptr);
}

// Header flag 2 says "this index stores documents" (older readers refuse such files); a reader
// refuses a file whose flag and message disagree, either way round.
TEST(IndexDocs, ReaderRefusesAFlagThatDisagreesWithTheDocuments) {
  // The raw-payload and frame-hash bits (4, 8) say how the payload is sealed; they stay as written.
  auto set_flags = [](std::vector<uint8_t>* bytes, uint32_t flags) {
    uint32_t old;
    std::memcpy(&old, bytes->data() + 36, 4);
    flags |= old & container::kSealFlags;
    std::memcpy(bytes->data() + 36, &flags, 4);
  };
  std::vector<uint8_t> with_docs = FileWithDoc(11, {"eleven", "", ""});
  uint32_t flags;
  std::memcpy(&flags, with_docs.data() + 36, 4);
  EXPECT_EQ(flags & ~container::kSealFlags, 2u);
  set_flags(&with_docs, 0);
  std::unique_ptr<Index> loaded;
  Status s = Index::Load(with_docs.data(), with_docs.size(), &loaded);  // even when documents are not asked for
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("documents flag"), std::string::npos) << s.message();

  std::unique_ptr<Index> index;
  ASSERT_TRUE(Index::Create(2, DType::kF32, &index).ok());
  const float a[2] = {1, 0};
  ASSERT_TRUE(index->Add(1, a).ok());
  std::vector<uint8_t> without;
  ASSERT_TRUE(index->Save(&without, 3).ok());
  std::memcpy(&flags, without.data() + 36, 4);
  EXPECT_EQ(flags & ~container::kSealFlags, 0u);
  ASSERT_TRUE(Index::Load(without.data(), without.size(), &loaded).ok());
  set_flags(&without, 2);
  s = Index::Load(without.data(), without.size(), &loaded);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("documents flag"), std::string::npos) << s.message();
  EXPECT_EQ(loaded, nullptr);
}

}  // namespace
}  // namespace swe

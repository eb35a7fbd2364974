// libswe's index files as change logs (docs/FORMAT.md, "Index change log"): a save appends one record
// for its changes to the file the index came from (the inode kept, the bytes written those of the
// change), compacts once the log passes half the base, cuts a torn tail first, writes the whole index
// over a file another writer changed; refresh applies other writers' records; save_changes gives the
// bytes a caller writes itself (the npm package).
#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

#include "c_api_fixture.h"
#include "swe/util/file.h"

namespace {

using namespace swe_c_api_test;

swe_doc Doc(const std::string& id, const std::string& text) {
  return swe_doc{{id.data(), id.size()}, {text.data(), text.size()}, {nullptr, 0}};
}

class CApiLogTest : public CApiTest {
 protected:
  void SetUp() override {
    CApiTest::SetUp();
    path_ = TempPath("log.swi");
    std::remove(path_.c_str());
  }
  void TearDown() override { std::remove(path_.c_str()); }

  void AddDoc(swe_index* index, const std::string& id, const std::string& text) {
    swe_doc doc = Doc(id, text);
    std::vector<float> v = Encode(text);
    ASSERT_EQ(swe_index_add_docs(index, &doc, v.data(), 1), SWE_OK) << swe_last_error();
  }
  IndexPtr Load() {
    swe_index* raw = nullptr;
    EXPECT_EQ(swe_index_load_from_file(path_.c_str(), nullptr, &raw), SWE_OK) << swe_last_error();
    return IndexPtr(raw);
  }
  static bool Has(const swe_index* index, const std::string& id) {
    uint64_t entry;
    return swe_index_find_doc(index, id.data(), id.size(), &entry) == SWE_OK;
  }
  // An index file of `n` documents.
  void Build(size_t n) {
    swe_index* raw = nullptr;
    ASSERT_EQ(swe_index_create(kDims, SWE_DTYPE_F32, &raw), SWE_OK);
    IndexPtr index(raw);
    for (size_t i = 0; i < n; ++i) AddDoc(index.get(), "base" + std::to_string(i), kTexts[i % 2]);
    ASSERT_EQ(swe_index_save_to_file(index.get(), path_.c_str()), SWE_OK) << swe_last_error();
  }
  uint64_t Size() const {
    struct stat st;
    return stat(path_.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  }
  uint64_t Inode() const {
    struct stat st;
    return stat(path_.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
  }
  std::string path_;
};

TEST_F(CApiLogTest, SavesAppendTheirChangesThenCompact) {
  Build(300);
  const uint64_t base = Size(), inode = Inode();
  IndexPtr index = Load();
  uint64_t previous = base;
  size_t saves = 0;
  while (Inode() == inode) {  // one document a save, until the log passes half the base
    AddDoc(index.get(), "new" + std::to_string(saves), "A dog ran in the park");
    ASSERT_EQ(swe_index_save_to_file(index.get(), path_.c_str()), SWE_OK) << swe_last_error();
    ++saves;
    if (Inode() != inode) break;
    EXPECT_LT(Size() - previous, 1024u) << "one record of one document, not the index";
    previous = Size();
    IndexPtr again = Load();  // every save is in the file
    ASSERT_EQ(swe_index_get_size(again.get()), 300 + saves);
  }
  EXPECT_GT(saves, 10u);
  EXPECT_LT(Size(), previous);  // compacted: the whole index, no records
  IndexPtr again = Load();
  EXPECT_EQ(swe_index_get_size(again.get()), 300 + saves);
  EXPECT_TRUE(Has(again.get(), "new0"));
  // Removals are records too; a save with nothing to save writes nothing.
  ASSERT_EQ(swe_index_remove(index.get(), 5), SWE_OK);
  const uint64_t before = Size();
  ASSERT_EQ(swe_index_save_to_file(index.get(), path_.c_str()), SWE_OK);
  EXPECT_GT(Size(), before);
  const uint64_t after = Size();
  ASSERT_EQ(swe_index_save_to_file(index.get(), path_.c_str()), SWE_OK);
  EXPECT_EQ(Size(), after);
  EXPECT_EQ(swe_index_get_size(Load().get()), 300 + saves - 1);
  // compact_to_file: the whole index, fewer bytes than base + log.
  ASSERT_EQ(swe_index_compact_to_file(index.get(), path_.c_str()), SWE_OK);
  EXPECT_LT(Size(), after);
  EXPECT_EQ(swe_index_get_size(Load().get()), 300 + saves - 1);
}

// An interrupted append leaves a torn record: readers ignore it, the next save cuts it first.
TEST_F(CApiLogTest, TheNextSaveCutsATornTail) {
  Build(50);
  IndexPtr index = Load();
  AddDoc(index.get(), "kept", "The cat sat on the mat.");
  ASSERT_EQ(swe_index_save_to_file(index.get(), path_.c_str()), SWE_OK);
  const uint64_t good = Size();
  AddDoc(index.get(), "torn", "A dog ran in the park");
  ASSERT_EQ(swe_index_save_to_file(index.get(), path_.c_str()), SWE_OK);
  ASSERT_EQ(truncate(path_.c_str(), static_cast<off_t>(Size() - 9)), 0);  // the crash
  IndexPtr reader = Load();
  EXPECT_TRUE(Has(reader.get(), "kept"));
  EXPECT_FALSE(Has(reader.get(), "torn"));
  AddDoc(reader.get(), "after", "Stock market fell; rain in New York");
  ASSERT_EQ(swe_index_save_to_file(reader.get(), path_.c_str()), SWE_OK) << swe_last_error();
  IndexPtr last = Load();
  EXPECT_TRUE(Has(last.get(), "kept"));
  EXPECT_FALSE(Has(last.get(), "torn"));
  EXPECT_TRUE(Has(last.get(), "after"));
  EXPECT_LT(Size() - good, 1024u);  // appended where the torn record was
}

// Two copies of one file: a save from the copy that no longer matches the file writes it whole (over
// the other's change, as a stale save always did); one that refreshed first appends after it.
TEST_F(CApiLogTest, RefreshAppliesOtherWritersRecords) {
  Build(20);
  IndexPtr a = Load(), b = Load();
  AddDoc(a.get(), "from-a", "The cat sat on the mat.");
  ASSERT_EQ(swe_index_save_to_file(a.get(), path_.c_str()), SWE_OK);
  int32_t changed = -1;
  ASSERT_EQ(swe_index_refresh_from_file(b.get(), path_.c_str(), nullptr, &changed), SWE_OK) << swe_last_error();
  EXPECT_EQ(changed, 1);
  EXPECT_TRUE(Has(b.get(), "from-a"));
  ASSERT_EQ(swe_index_refresh_from_file(b.get(), path_.c_str(), nullptr, &changed), SWE_OK);
  EXPECT_EQ(changed, 0);
  const uint64_t inode = Inode(), size = Size();
  AddDoc(b.get(), "from-b", "A dog ran in the park");
  ASSERT_EQ(swe_index_save_to_file(b.get(), path_.c_str()), SWE_OK);
  EXPECT_EQ(Inode(), inode);
  EXPECT_LT(Size() - size, 1024u);
  IndexPtr both = Load();
  EXPECT_TRUE(Has(both.get(), "from-a"));
  EXPECT_TRUE(Has(both.get(), "from-b"));
  // Unsaved changes cannot be refreshed over.
  AddDoc(a.get(), "unsaved", "rain");
  EXPECT_EQ(swe_index_refresh_from_file(a.get(), path_.c_str(), nullptr, &changed), SWE_ERR_INVALID_ARGUMENT);
  // `a` is stale (b appended): its save writes the whole index, with a's documents.
  ASSERT_EQ(swe_index_save_to_file(a.get(), path_.c_str()), SWE_OK);
  EXPECT_NE(Inode(), inode);
  IndexPtr whole = Load();
  EXPECT_TRUE(Has(whole.get(), "unsaved"));
  EXPECT_FALSE(Has(whole.get(), "from-b"));
  // A file replaced whole is read whole by refresh.
  ASSERT_EQ(swe_index_refresh_from_file(b.get(), path_.c_str(), nullptr, &changed), SWE_OK);
  EXPECT_EQ(changed, 1);
  EXPECT_TRUE(Has(b.get(), "unsaved"));
  EXPECT_FALSE(Has(b.get(), "from-b"));
}

// What the npm package writes itself: the record at the end of the bytes it loaded, or the whole index.
TEST_F(CApiLogTest, SaveChangesGivesTheBytesToWriteAndWhere) {
  Build(30);
  std::vector<uint8_t> file;
  std::string error;
  ASSERT_TRUE(swe::util::ReadFile(path_, &file, &error)) << error;
  swe_index* raw = nullptr;
  ASSERT_EQ(swe_index_load_from_bytes(file.data(), file.size(), nullptr, &raw), SWE_OK);
  IndexPtr index(raw);
  auto save_changes = [&](std::vector<uint8_t>* bytes) {
    uint8_t* data = nullptr;
    size_t size = 0;
    uint64_t offset = 99;
    EXPECT_EQ(swe_index_save_changes(index.get(), &data, &size, &offset), SWE_OK) << swe_last_error();
    bytes->assign(data, data + size);
    swe_free_bytes(data);
    return offset;
  };
  std::vector<uint8_t> changes;
  EXPECT_EQ(save_changes(&changes), file.size());  // nothing changed: nothing to write
  EXPECT_TRUE(changes.empty());
  AddDoc(index.get(), "js", "The cat sat on the mat.");
  const uint64_t offset = save_changes(&changes);
  EXPECT_EQ(offset, file.size());
  EXPECT_GT(changes.size(), 0u);
  EXPECT_LT(changes.size(), 1024u);
  file.resize(offset);
  file.insert(file.end(), changes.begin(), changes.end());
  ASSERT_EQ(swe_index_load_from_bytes(file.data(), file.size(), nullptr, &raw), SWE_OK);
  IndexPtr loaded(raw);
  EXPECT_TRUE(Has(loaded.get(), "js"));
  EXPECT_EQ(swe_index_get_size(loaded.get()), 31u);
  // A created index has no file yet: the whole index, at 0.
  IndexPtr fresh = MakeIndex(SWE_DTYPE_INT8);
  uint8_t* data = nullptr;
  size_t size = 0;
  uint64_t at = 99;
  ASSERT_EQ(swe_index_save_changes(fresh.get(), &data, &size, &at), SWE_OK);
  EXPECT_EQ(at, 0u);
  ASSERT_EQ(swe_index_load_from_bytes(data, size, nullptr, &raw), SWE_OK);
  swe_free_bytes(data);
  IndexPtr whole(raw);
  EXPECT_EQ(swe_index_get_size(whole.get()), swe_index_get_size(fresh.get()));
}

}  // namespace

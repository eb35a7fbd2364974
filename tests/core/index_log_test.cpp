// The index change log (docs/FORMAT.md, "Index change log"): records replay to the writer's index
// exactly; a file cut at any byte of its log loads with every record before the cut; a damaged last
// record is ignored and a damaged earlier one refused; what a writer finds after the part it knows.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "swe/index.h"
#include "swe/index_docs.h"
#include "swe/index_log.h"
#include "core/test_models.h"

namespace swe {
namespace {

constexpr uint32_t kDims = 12;

std::vector<float> Vector(uint64_t seed) { return testing::RandomVectors(1, kDims, static_cast<uint32_t>(seed)); }

// An index and its documents, changed the way libswe's handle changes them, with a journal.
struct Writer {
  std::unique_ptr<Index> index;
  IndexDocs docs;
  IndexJournal journal;
  IndexFileState state;
  std::vector<uint8_t> file;

  explicit Writer(DType dtype, const std::string& model = "m") {
    EXPECT_TRUE(Index::Create(kDims, dtype, &index).ok());
    index->set_model(model, 7);
    EXPECT_TRUE(index->Save(&file, 3, &docs, &state).ok());
  }
  void AddDoc(const std::string& id, const std::string& text, uint64_t seed) {
    uint64_t entry = 0;
    if (!docs.Find(id, &entry)) entry = index->NextId();
    journal.BeginPuts(true);
    ASSERT_TRUE(docs.Put(entry, IndexDoc{id, text, text.empty() ? "" : "{\"t\":1}"}).ok());
    ASSERT_TRUE(index->Add(entry, Vector(seed).data()).ok());
    journal.Put(*index, entry, docs.Get(entry));
  }
  void AddVectors(const std::vector<uint64_t>& ids, uint64_t seed) {
    journal.BeginPuts(false);
    for (uint64_t id : ids) ASSERT_TRUE(index->Add(id, Vector(seed + id).data()).ok());
    for (uint64_t id : ids) journal.Put(*index, id, nullptr);
  }
  void Remove(uint64_t entry) {
    ASSERT_TRUE(index->Remove(entry).ok());
    docs.Erase(entry);
    journal.Remove(entry);
  }
  // Appends the journal as one record; returns the file's size after it.
  size_t Save() {
    std::vector<uint8_t> record;
    IndexFileState after;
    EXPECT_TRUE(EncodeIndexRecord(*index, journal.steps(), state, &record, &after).ok());
    EXPECT_EQ(file.size(), state.valid_size);
    file.insert(file.end(), record.begin(), record.end());
    state = after;
    journal.Clear();
    return file.size();
  }
  // The index as a whole file (a base alone): equal bytes mean equal indexes.
  std::vector<uint8_t> Whole() const { return WholeOf(*index, docs); }
  static std::vector<uint8_t> WholeOf(const Index& index, const IndexDocs& docs) {
    std::vector<uint8_t> bytes;
    EXPECT_TRUE(index.Save(&bytes, 0, &docs).ok());
    return bytes;
  }
};

Status Load(const std::vector<uint8_t>& bytes, size_t size, std::vector<uint8_t>* whole,
            IndexFileState* state = nullptr) {
  std::unique_ptr<Index> index;
  IndexDocs docs;
  Status s = Index::Load(bytes.data(), size, &index, ReadLimits(), &docs, state);
  if (s.ok()) *whole = Writer::WholeOf(*index, docs);
  return s;
}

// A writer that saved several records of every kind of step; `wholes[i]` is its index after record i
// (wholes[0]: the base), `ends[i]` the file's size then.
struct History {
  Writer writer;
  std::vector<std::vector<uint8_t>> wholes;
  std::vector<size_t> ends;
  explicit History(DType dtype) : writer(dtype) {
    Mark();
    writer.AddDoc("a", "the first document", 1);
    writer.AddDoc("b", "", 2);
    Mark();
    writer.AddVectors({100, 101, 100}, 3);  // a plain entry put twice in one call
    Mark();
    writer.AddDoc("a", "the first document, replaced", 4);  // a replacement
    writer.Remove(1);                                       // b's entry
    Mark();
    writer.AddVectors({0}, 5);  // a's entry replaced by a vector: its document stays
    writer.AddDoc("c", "ünïcödé 日本", 6);
    writer.Remove(101);
    Mark();
  }
  void Mark() {
    if (!writer.journal.empty()) writer.Save();
    wholes.push_back(writer.Whole());
    ends.push_back(writer.file.size());
  }
};

class IndexLogTest : public ::testing::TestWithParam<DType> {};

TEST_P(IndexLogTest, RecordsReplayToTheWritersIndex) {
  History h(GetParam());
  ASSERT_EQ(h.ends.size(), 5u);
  std::vector<uint8_t> whole;
  IndexFileState state;
  ASSERT_TRUE(Load(h.writer.file, h.writer.file.size(), &whole, &state).ok());
  EXPECT_EQ(whole, h.wholes.back());
  EXPECT_EQ(state.records, 4u);
  EXPECT_EQ(state.valid_size, h.writer.file.size());
  EXPECT_EQ(state.mark, h.writer.state.mark);
  EXPECT_EQ(state.mark_offset, h.writer.state.mark_offset);
  // The replayed documents: a's text replaced and kept through its vector's replacement, b gone.
  std::unique_ptr<Index> index;
  IndexDocs docs;
  ASSERT_TRUE(Index::Load(h.writer.file.data(), h.writer.file.size(), &index, ReadLimits(), &docs).ok());
  uint64_t entry = 0;
  ASSERT_TRUE(docs.Find("a", &entry));
  EXPECT_EQ(docs.Get(entry)->text, "the first document, replaced");
  EXPECT_FALSE(docs.Find("b", &entry));
  ASSERT_TRUE(docs.Find("c", &entry));
  EXPECT_EQ(docs.Get(entry)->text, "ünïcödé 日本");
  EXPECT_TRUE(index->Contains(100));
  EXPECT_FALSE(index->Contains(101));
  EXPECT_EQ(index->ids(), h.writer.index->ids());  // the same storage order
}

// The crash-recovery test: the file cut at every byte from the base's end on loads, with exactly the
// records that lie wholly before the cut; a writer then finds a torn tail to cut (or nothing).
TEST_P(IndexLogTest, EveryCutLoadsEveryRecordBeforeIt) {
  History h(GetParam());
  const std::vector<uint8_t>& file = h.writer.file;
  for (size_t cut = h.ends[0]; cut <= file.size(); ++cut) {
    size_t whole_records = 0;
    while (whole_records + 1 < h.ends.size() && h.ends[whole_records + 1] <= cut) ++whole_records;
    std::vector<uint8_t> whole;
    IndexFileState state;
    Status s = Load(file, cut, &whole, &state);
    ASSERT_TRUE(s.ok()) << "cut at " << cut << ": " << s.ToString();
    ASSERT_EQ(whole, h.wholes[whole_records]) << "cut at " << cut;
    ASSERT_EQ(state.records, whole_records);
    ASSERT_EQ(state.file_size, cut);
    const IndexTail tail = ClassifyIndexTail(file.data() + state.valid_size, cut - state.valid_size, state);
    ASSERT_EQ(tail, cut == state.valid_size ? IndexTail::kNone : IndexTail::kTorn) << "cut at " << cut;
    // What a writer that knows only the first records finds after them: the next record, appended.
    if (whole_records > 0) {
      std::vector<uint8_t> earlier;
      IndexFileState known;
      ASSERT_TRUE(Load(file, h.ends[whole_records - 1], &earlier, &known).ok());
      EXPECT_EQ(ClassifyIndexTail(file.data() + known.valid_size, cut - known.valid_size, known),
                IndexTail::kAppended);
    }
  }
  // Inside the base the file is damaged, not torn: refused.
  std::vector<uint8_t> whole;
  for (size_t cut : {size_t{0}, size_t{39}, h.ends[0] - 1}) EXPECT_FALSE(Load(file, cut, &whole).ok()) << cut;
}

// A flipped bit in the last record is a torn append (ignored); in an earlier one, damage to an
// acknowledged record (refused: later records follow).
TEST_P(IndexLogTest, DamageInsideRecords) {
  History h(GetParam());
  const size_t records = h.ends.size() - 1;
  for (size_t r = 1; r <= records; ++r) {
    for (size_t at = h.ends[r - 1]; at < h.ends[r]; at += 7) {
      std::vector<uint8_t> file = h.writer.file;
      file[at] ^= 0x10;
      std::vector<uint8_t> whole;
      IndexFileState state;
      const Status s = Load(file, file.size(), &whole, &state);
      if (at < ((h.ends[r - 1] + 7) & ~size_t{7})) {  // the pad before the first record: must be zero
        EXPECT_FALSE(s.ok()) << "byte " << at;
        continue;
      }
      if (r == records) {
        ASSERT_TRUE(s.ok()) << "byte " << at << ": " << s.ToString();
        EXPECT_EQ(whole, h.wholes[records - 1]);
        EXPECT_EQ(state.records, records - 1);
      } else {
        EXPECT_EQ(s.code(), StatusCode::kCorrupt) << "byte " << at;
      }
    }
  }
}

TEST_P(IndexLogTest, RecordsThatDoNotApplyAreCorrupt) {
  Writer w(GetParam());
  w.AddDoc("a", "x", 1);
  w.Save();
  // Removing an entry that is not there, as a well-formed record.
  IndexStep step;
  step.removed = {999};
  std::vector<uint8_t> record;
  IndexFileState after;
  ASSERT_TRUE(EncodeIndexRecord(*w.index, {step}, w.state, &record, &after).ok());
  std::vector<uint8_t> file = w.file;
  file.insert(file.end(), record.begin(), record.end());
  std::vector<uint8_t> whole;
  EXPECT_EQ(Load(file, file.size(), &whole).code(), StatusCode::kCorrupt);
  // A document id that another entry holds.
  IndexStep dup;
  dup.entries = {55};
  dup.rows.assign(w.index->row_bytes(), 0);
  dup.scales.assign(GetParam() == DType::kInt8 ? 1 : 0, 0.0f);
  dup.sets_docs = true;
  dup.docs = {IndexDoc{"a", "", ""}};
  ASSERT_TRUE(EncodeIndexRecord(*w.index, {dup}, w.state, &record, &after).ok());
  file = w.file;
  file.insert(file.end(), record.begin(), record.end());
  EXPECT_EQ(Load(file, file.size(), &whole).code(), StatusCode::kCorrupt);
  // A row that is not a unit vector (f32) or holds -128 (int8).
  IndexStep bad;
  bad.entries = {56};
  bad.rows.assign(w.index->row_bytes(), GetParam() == DType::kInt8 ? 0x80 : 0x40);
  bad.scales.assign(GetParam() == DType::kInt8 ? 1 : 0, 0.001f);
  ASSERT_TRUE(EncodeIndexRecord(*w.index, {bad}, w.state, &record, &after).ok());
  file = w.file;
  file.insert(file.end(), record.begin(), record.end());
  EXPECT_EQ(Load(file, file.size(), &whole).code(), StatusCode::kCorrupt);
}

// A record written for another base, or out of sequence, is not this file's: ignored as a torn tail.
TEST_P(IndexLogTest, RecordsBelongToTheirBaseAndPlace) {
  History h(GetParam());
  Writer other(GetParam(), "another model");
  other.AddDoc("z", "another file's change", 9);
  other.Save();
  std::vector<uint8_t> file(h.writer.file.begin(), h.writer.file.begin() + h.ends[1]);
  file.insert(file.end(), other.file.begin() + other.state.mark_offset, other.file.end());
  std::vector<uint8_t> whole;
  IndexFileState state;
  ASSERT_TRUE(Load(file, file.size(), &whole, &state).ok());
  EXPECT_EQ(whole, h.wholes[1]);
  // Record 3 right after record 1: a whole record out of its place is damage (a record cut out).
  file.assign(h.writer.file.begin(), h.writer.file.begin() + h.ends[1]);
  file.insert(file.end(), h.writer.file.begin() + h.ends[2], h.writer.file.begin() + h.ends[3]);
  EXPECT_EQ(Load(file, file.size(), &whole).code(), StatusCode::kCorrupt);
}

TEST_P(IndexLogTest, CompactionIsDueAtHalfTheBase) {
  IndexFileState state;
  state.base_size = state.valid_size = 1 << 20;
  EXPECT_FALSE(state.CompactionDue(512 << 10));
  EXPECT_TRUE(state.CompactionDue((512 << 10) + 1));
  state.valid_size += 500 << 10;
  EXPECT_TRUE(state.CompactionDue(13 << 10));
  state.base_size = state.valid_size = 1000;  // small bases: 64 KiB of log
  EXPECT_FALSE(state.CompactionDue(64 << 10));
  EXPECT_TRUE(state.CompactionDue((64 << 10) + 1));
}

INSTANTIATE_TEST_SUITE_P(Both, IndexLogTest, ::testing::Values(DType::kF32, DType::kInt8),
                         [](const auto& info) { return info.param == DType::kF32 ? "f32" : "int8"; });

}  // namespace
}  // namespace swe

// The change log of an index file (docs/FORMAT.md, "Index change log"): the changes an index took
// since its file was last written, recorded as they happen (IndexJournal), written as one record after
// the file's base (EncodeIndexRecord), read back by Index::Load and ApplyIndexLog, and where a loaded
// or written index stands in its file (IndexFileState).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "swe/index.h"
#include "swe/index_docs.h"
#include "swe/model_file.h"
#include "swe/status.h"

namespace swe {

// One change as a record holds it: removals, then puts (new or replaced entries with their stored rows).
struct IndexStep {
  std::vector<uint64_t> removed;
  std::vector<uint64_t> entries;  // the puts
  std::vector<uint8_t> rows;      // one stored row per put (Index::row_bytes() each)
  std::vector<float> scales;      // int8 indexes: one per put
  bool sets_docs = false;         // each put sets its entry's document (docs), else keeps it
  std::vector<IndexDoc> docs;
};

// Where an index stands in the bytes of its file: what Index::Load read, or what a write left.
struct IndexFileState {
  uint64_t base_size = 0;   // header + frame
  uint64_t valid_size = 0;  // the base, its pad and the valid records after it
  uint64_t file_size = 0;   // every byte read: valid_size plus an ignored torn tail
  uint32_t base_checksum = 0;
  uint32_t records = 0;     // valid records; the next one's sequence number is records + 1
  // The bytes that end the valid part (the last record's header, or the base's header) and where they
  // lie: a writer checks that they are still there before it appends.
  uint64_t mark_offset = 0;
  std::vector<uint8_t> mark;
  uint64_t log_size() const { return valid_size - base_size; }
  // A writer compacts instead of appending `record` bytes when the log would pass half the base, or
  // 64 KiB for small bases.
  bool CompactionDue(uint64_t record) const;
};

// The changes an index took since its file (or the bytes it was loaded from) was last written, in the
// order they were made. Kept by the C API's index handle beside the index and its documents.
class IndexJournal {
 public:
  // Starts the step of one add call: its puts set their documents when `sets_docs`.
  void BeginPuts(bool sets_docs);
  // Records the put of `entry` as `index` stores it now, with `doc` when the step sets documents.
  void Put(const Index& index, uint64_t entry, const IndexDoc* doc);
  // Records the removal of `entry` (consecutive removals share a step).
  void Remove(uint64_t entry);
  const std::vector<IndexStep>& steps() const { return steps_; }
  bool empty() const { return steps_.empty(); }
  // About the bytes the steps take in a record.
  uint64_t bytes() const { return bytes_; }
  void Clear();

 private:
  std::vector<IndexStep> steps_;
  uint64_t bytes_ = 0;
};

// The bytes to write at state.valid_size of the file (the pad after the base first, for the first
// record) to append `steps` as one record, and the state the file is in once they are written.
Status EncodeIndexRecord(const Index& index, const std::vector<IndexStep>& steps, const IndexFileState& state,
                         std::vector<uint8_t>* out, IndexFileState* after);

// The same for a record body already written (one Cap'n Proto IndexChange message, whole words).
Status FrameIndexRecord(const uint8_t* body, size_t size, const IndexFileState& state, std::vector<uint8_t>* out,
                        IndexFileState* after);

// Applies the records in `data` (`size` bytes: the file from state->valid_size on) to `index` and
// `docs` (may be null: documents are then not kept), advancing *state over each valid one. A torn
// tail is left unapplied (state->file_size counts it); a damaged record followed by a valid one, or a
// valid record that does not apply, is Corrupt.
Status ApplyIndexLog(const uint8_t* data, size_t size, const ReadLimits& limits, Index* index, IndexDocs* docs,
                     IndexFileState* state);

// What follows the valid part of a file (`data`: `size` bytes from state.valid_size on), as a writer
// that last saw `state` finds it.
enum class IndexTail {
  kNone,      // nothing
  kTorn,      // an interrupted append: truncate it
  kAppended,  // a valid record: another writer appended since
  kCorrupt,   // an invalid record followed by a valid one
};
IndexTail ClassifyIndexTail(const uint8_t* data, size_t size, const IndexFileState& state);

}  // namespace swe

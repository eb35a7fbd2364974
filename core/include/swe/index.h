// A flat, exact cosine index: every query is scored against every stored vector. Deterministic:
// equal scores are ordered by ascending id. Vectors are L2-normalised when added; int8 indexes store
// each vector as int8 with one f32 scale (max |x| / 127) and score with exact integer dot products.
// Rows are kept in chunks of 1,024 that copies share: copying an index costs a pointer per chunk, and
// a change to one copy copies only the chunk (and map shard) it writes while another copy holds it.
// So a copy is a version that searches read while the original takes the next change (libswe's
// published versions: swe.h, "Thread safety").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "swe/index_docs.h"
#include "swe/model.h"
#include "swe/model_file.h"
#include "swe/shared_map.h"
#include "swe/status.h"

namespace swe {

struct IndexFileState;

struct SearchHit {
  uint64_t id;
  float score;
};

class Index {
 public:
  // dtype: DType::kF32 or DType::kInt8.
  static Status Create(uint32_t dims, DType dtype, std::unique_ptr<Index>* out);
  // Reads an index file written by Save (validated like a model file) and applies the change records
  // after it (docs/FORMAT.md, "Index change log"; index_log.h). `docs` (may be null: they are then
  // skipped, unvalidated) receives the file's documents; `state` (may be null) where the index stands
  // in the file, for a writer that appends to it.
  static Status Load(const uint8_t* data, size_t size, std::unique_ptr<Index>* out,
                     const ReadLimits& limits = ReadLimits(), IndexDocs* docs = nullptr,
                     IndexFileState* state = nullptr);
  ~Index();
  Index(const Index&);  // shares the rows (above)
  Index& operator=(const Index&) = delete;

  uint32_t dims() const { return dims_; }
  DType dtype() const { return dtype_; }
  size_t size() const { return size_; }
  // The ids, in storage order (changed by Add and Remove).
  std::vector<uint64_t> ids() const;
  // One more than the largest id (0 when empty; an id of 2^64 - 1 counts as none): an id no entry has,
  // for callers that number entries themselves. Kept as entries come, so adding is O(1); only after
  // the largest id is removed does the next call rescan the ids once.
  uint64_t NextId();
  // Informative: the model the vectors came from (stored in the file, checked by callers).
  void set_model(std::string name, uint32_t checksum) { model_name_ = std::move(name); model_checksum_ = checksum; }
  const std::string& model_name() const { return model_name_; }
  uint32_t model_checksum() const { return model_checksum_; }

  // Adds (or replaces) the vector for `id`. Rejects non-finite values.
  Status Add(uint64_t id, const float* vector);
  Status AddBatch(const uint64_t* ids, const float* vectors, size_t n);
  Status Remove(uint64_t id);
  // The most entries one index file can hold: its vectors are one table of at most 512 MiB (524,287
  // f32 rows of 256 dims; int8 rows are a quarter). Add refuses an entry past it (TooLarge), so an
  // index that could not be saved is not built.
  size_t MaxEntries() const;
  // Makes room for `more` entries, or TooLarge (nothing changed) when the index would pass MaxEntries():
  // a caller that knows how many entries come fails before the work.
  Status Reserve(size_t more);
  // Bytes of one stored row: dims() floats, or dims() int8 values (with a scale apart).
  size_t row_bytes() const;
  // The stored row of `id` into `row` (row_bytes()) and, int8, its scale; false when `id` is absent.
  bool StoredRow(uint64_t id, uint8_t* row, float* scale) const;
  // Adds (or replaces) `id` with a row in stored form, as a change record holds it: checked as a
  // loaded row is (f32: finite and unit length or zero; int8: no -128, scale of a unit vector's row).
  Status PutStored(uint64_t id, const uint8_t* row, float scale);
  bool Contains(uint64_t id) const noexcept;  // noexcept: swe_index_contains returns only 1 or 0
  // The k best hits for `query` (dims() floats), best first; fewer when the index is smaller.
  Status Search(const float* query, size_t k, std::vector<SearchHit>* hits) const;
  // Approximate and much faster on large indexes: ranks every vector by the Hamming distance between
  // its binary code and the query's (1 bit per dimension: above or below a center), rescores the
  // `candidates` nearest with Search's exact scores and returns the k best of those.
  // The codes (dims / 8 bytes a vector, not saved) exist once EnableBinary made them, centred on the
  // mean of the vectors then; Add and Remove keep them up to date, and an Add that doubles the size the
  // center was computed on re-centres them. Without codes, each call codes every vector for itself.
  Status SearchBinary(const float* query, size_t k, size_t candidates, std::vector<SearchHit>* hits) const;
  // Builds the codes (or rebuilds them around the current mean). A change, like Add.
  void EnableBinary();
  bool binary_enabled() const { return center_ != nullptr; }
  // Bytes held by the stored vectors, ids, scales and codes (capacities; not the id -> position map).
  size_t MemoryBytes() const;
  // Appends a .swe index file to `out`, with `docs` (entries of this index) when given and not empty;
  // `state` (may be null) receives where the index stands in it (a base without change records).
  Status Save(std::vector<uint8_t>* out, int zstd_level = 3, const IndexDocs* docs = nullptr,
              IndexFileState* state = nullptr) const;

 private:
  Index(uint32_t dims, DType dtype);
  struct Chunk;      // the rows of kChunkRows positions: ids, values, int8 scales
  struct CodeChunk;  // their binary codes
  struct Codes;      // a center and the code chunks (this index's, or a search's own)
  uint32_t dims_;
  DType dtype_;
  size_t size_ = 0;
  std::vector<std::shared_ptr<Chunk>> chunks_;  // chunk c: positions c * kChunkRows ...
  SharedMap<uint64_t, uint64_t> position_;      // id -> position
  std::shared_ptr<const std::vector<float>> center_;  // the codes' center; null when there are none
  std::vector<std::shared_ptr<CodeChunk>> codes_;     // with center_: one per chunk
  size_t centred_on_ = 0;                             // the size the center was computed on
  uint64_t next_id_ = 0;         // NextId(), unless next_id_stale_
  bool next_id_stale_ = false;   // the largest id was removed (or ids were loaded): rescan
  std::string model_name_;
  uint32_t model_checksum_ = 0;

  size_t RowsIn(size_t chunk) const;                 // positions of `chunk` in use
  uint64_t IdAt(size_t pos) const;
  const uint8_t* RowAt(size_t pos) const;
  float ScaleAt(size_t pos) const;
  // Chunk `c` made writable for `rows` rows, its rows kept: what every write does first. A copy when
  // another index (a published version) shares it, unless the write is an append past every row a
  // copy may read (`appending`: row rows - 1 is new).
  Chunk& WritableChunk(size_t c, size_t rows, bool appending);
  uint64_t* WritableCodes(size_t pos, bool appending);  // the code words of `pos`, writable as above
  size_t Slot(uint64_t id);             // the position of `id`, a new one at the end when absent
  Status CheckRoomFor(uint64_t id) const;  // TooLarge when `id` is new and the index is full
  void Placed(size_t pos, bool appended);  // after a row was stored at `pos`: keeps the codes current
  void BuildCodes();                    // center on the current mean, code every row
  void CodeRow(size_t pos, const float* center, uint64_t* out) const;
  Codes TemporaryCodes() const;         // codes for one search of an index without them
  Status Rescore(const float* unit, size_t k, const std::vector<uint32_t>& nearest, std::vector<SearchHit>* hits) const;
  // Index::Load's part: the rows from a file's blobs (checked), into chunks.
  Status FillFromBlobs(const uint8_t* ids, const uint8_t* values, const uint8_t* scales, size_t count);
};

}  // namespace swe

// The C API (libswe/include/swe.h) over core: an index's file. Loading records where the index stands
// in its bytes; saving appends the changes made since as one change record when the file is still the
// one the index knows, and writes the whole index otherwise (docs/FORMAT.md, "Index change log").
#include <cstdlib>
#include <cstring>

#include "c_api_internal.h"
#include "swe/util/file.h"

using swe::capi::Fail;
using swe::capi::FromStatus;
using swe::capi::Guard;

namespace swe::capi {

uint64_t MaxIndexFileBytes(const swe_load_params* params) {
  // The base, and a change log of at most half of it (IndexFileState::CompactionDue).
  const uint64_t base = MaxFileBytes(ToReadLimits(params));
  return base > UINT64_MAX / 2 ? UINT64_MAX : 2 * base;
}

void AfterChange(swe_index& index) {
  if (!index.has_file || !index.journal_complete) return;
  if (index.file.CompactionDue(index.journal.bytes())) {  // a record this large is never appended
    index.journal.Clear();
    index.journal_complete = false;
  }
}

swe_status LoadInto(const uint8_t* data, size_t size, const swe_load_params* params, swe_index* handle) {
  static const uint8_t kEmpty = 0;
  std::unique_ptr<Index> index;
  IndexDocs docs;
  IndexFileState state;
  swe_status s = FromStatus(Index::Load(data ? data : &kEmpty, size, &index, ToReadLimits(params), &docs, &state));
  if (s != SWE_OK) return s;
  if (!index) return Fail(SWE_ERR_INTERNAL, "reader returned no index");
  handle->index = std::move(index);
  handle->docs = std::move(docs);
  handle->file = std::move(state);
  handle->has_file = true;
  handle->file_id = util::FileId();
  handle->journal.Clear();
  handle->journal_complete = true;
  return SWE_OK;
}

}  // namespace swe::capi

namespace {

// The whole index as a new base, and where the index stands in it.
swe_status WholeFile(const swe::Index& index, const swe::IndexDocs& docs, std::vector<uint8_t>* bytes,
                     swe::IndexFileState* state) {
  return FromStatus(index.Save(bytes, 3, &docs, state));
}

// After `index` wrote (or was loaded from) the bytes `state` describes: the changes so far are in them.
void Written(swe_index* index, swe::IndexFileState state, swe::util::FileId id) {
  index->file = std::move(state);
  index->file_id = id;
  index->has_file = true;
  index->journal.Clear();
  index->journal_complete = true;
}

swe_status WriteWhole(swe_index* index, const char* path) {
  std::vector<uint8_t> bytes;
  swe::IndexFileState state;
  if (swe_status s = WholeFile(*index->index, index->docs, &bytes, &state); s != SWE_OK) return s;
  std::string error;
  swe::util::AtomicFile out;
  swe::util::FileId id;
  if (!out.Open(path, &error)) return Fail(SWE_ERR_IO, error);
  if (std::fwrite(bytes.data(), 1, bytes.size(), out.file()) != bytes.size()) {
    return Fail(SWE_ERR_IO, std::string(path) + ": write failed: " + std::strerror(errno));
  }
  if (!out.Commit(&error, &id)) return Fail(SWE_ERR_IO, error);
  Written(index, std::move(state), id);
  return SWE_OK;
}

// Whether `file` is still the file `index` last read or wrote: the same inode, and the bytes that end
// the part it knows (its mark) unchanged.
bool StillOurs(const swe_index& index, swe::util::FileInPlace& file) {
  if (file.id() != index.file_id || file.size() < index.file.valid_size) return false;
  std::vector<uint8_t> mark(index.file.mark.size());
  std::string error;
  return file.ReadAt(index.file.mark_offset, mark.size(), mark.data(), &error) && mark == index.file.mark;
}

// What follows the part of `file` that `index` knows.
swe::IndexTail TailOf(const swe_index& index, swe::util::FileInPlace& file, std::vector<uint8_t>* tail) {
  tail->resize(file.size() - index.file.valid_size);
  std::string error;
  if (!file.ReadAt(index.file.valid_size, tail->size(), tail->data(), &error)) return swe::IndexTail::kCorrupt;
  return swe::ClassifyIndexTail(tail->data(), tail->size(), index.file);
}

// Appends the journal to `path` as one record when the file is the one the index knows; *appended
// false (nothing written) when the whole index must be written instead.
swe_status TryAppend(swe_index* index, const char* path, bool* appended) {
  *appended = false;
  if (!index->has_file || !index->journal_complete || index->file_id == swe::util::FileId()) return SWE_OK;
  std::string error;
  swe::util::FileInPlace file;
  bool missing = false;
  if (!file.Open(path, &missing, &error)) return missing ? SWE_OK : Fail(SWE_ERR_IO, error);
  if (!StillOurs(*index, file)) return SWE_OK;
  std::vector<uint8_t> tail;
  const swe::IndexTail what = TailOf(*index, file, &tail);
  if (what == swe::IndexTail::kAppended || what == swe::IndexTail::kCorrupt) return SWE_OK;  // rewritten whole
  if (index->journal.empty()) {  // nothing to add: the file holds the index already
    *appended = true;
    return SWE_OK;
  }
  std::vector<uint8_t> record;
  swe::IndexFileState after;
  if (swe_status s = FromStatus(swe::EncodeIndexRecord(*index->index, index->journal.steps(), index->file, &record,
                                                       &after));
      s != SWE_OK) {
    return s;
  }
  if (index->file.CompactionDue(after.log_size() - index->file.log_size())) return SWE_OK;
  // A torn tail (an interrupted append) goes first; then the record, durable before the answer.
  if ((what == swe::IndexTail::kTorn && !file.Truncate(index->file.valid_size, &error)) ||
      !file.WriteAt(index->file.valid_size, record.data(), record.size(), &error) || !file.Sync(&error)) {
    std::string ignored;
    file.Truncate(index->file.valid_size, &ignored);  // best effort: a partial record would be a torn tail
    return Fail(SWE_ERR_IO, error);
  }
  Written(index, std::move(after), file.id());
  *appended = true;
  return SWE_OK;
}

// A copy of `bytes` in memory the caller frees with swe_free_bytes().
swe_status CopyOut(const std::vector<uint8_t>& bytes, uint8_t** out_data, size_t* out_size) {
  auto* data = static_cast<uint8_t*>(std::malloc(bytes.empty() ? 1 : bytes.size()));
  if (!data) return Fail(SWE_ERR_OUT_OF_MEMORY, "out of memory");
  if (!bytes.empty()) std::memcpy(data, bytes.data(), bytes.size());
  *out_data = data;
  *out_size = bytes.size();
  return SWE_OK;
}

}  // namespace

extern "C" {

swe_status swe_index_save_to_bytes(const swe_index* index, uint8_t** out_data, size_t* out_size) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index && out_data && out_size, "swe_index_save_to_bytes: NULL argument");
    *out_data = nullptr;
    *out_size = 0;
    std::vector<uint8_t> bytes;
    const auto version = swe::capi::Read(*index);
    if (swe_status s = WholeFile(version->index, version->docs, &bytes, nullptr); s != SWE_OK) return s;
    return CopyOut(bytes, out_data, out_size);
  });
}

swe_status swe_index_save_to_file(swe_index* index, const char* path) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index && path, "swe_index_save_to_file: NULL index or path");
    std::lock_guard<std::mutex> saving(index->writer);  // one save or change at a time; searches go on
    bool appended = false;
    if (swe_status s = TryAppend(index, path, &appended); s != SWE_OK || appended) return s;
    return WriteWhole(index, path);
  });
}

swe_status swe_index_compact_to_file(swe_index* index, const char* path) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index && path, "swe_index_compact_to_file: NULL index or path");
    std::lock_guard<std::mutex> saving(index->writer);
    return WriteWhole(index, path);
  });
}

swe_status swe_index_save_changes(swe_index* index, uint8_t** out_data, size_t* out_size, uint64_t* out_offset) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index && out_data && out_size && out_offset, "swe_index_save_changes: NULL argument");
    *out_data = nullptr;
    *out_size = 0;
    *out_offset = 0;
    std::lock_guard<std::mutex> saving(index->writer);
    std::vector<uint8_t> bytes;
    swe::IndexFileState after;
    bool record = index->has_file && index->journal_complete;
    if (record) {
      swe_status s = FromStatus(swe::EncodeIndexRecord(*index->index, index->journal.steps(), index->file, &bytes, &after));
      if (s != SWE_OK) return s;
      record = !index->file.CompactionDue(after.log_size() - index->file.log_size());
      if (record && index->journal.empty()) bytes.clear(), after = index->file;  // nothing to write
    }
    if (!record) {
      bytes.clear();
      if (swe_status s = WholeFile(*index->index, index->docs, &bytes, &after); s != SWE_OK) return s;
    }
    if (swe_status s = CopyOut(bytes, out_data, out_size); s != SWE_OK) return s;
    *out_offset = record ? index->file.valid_size : 0;
    Written(index, std::move(after), swe::util::FileId());
    return SWE_OK;
  });
}

swe_status swe_index_refresh_from_file(swe_index* index, const char* path, const swe_load_params* params,
                                       int32_t* out_changed) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index && path, "swe_index_refresh_from_file: NULL index or path");
    if (out_changed) *out_changed = 0;
    swe::capi::Change change(*index);
    if (!index->journal.empty() || !index->journal_complete || (!index->has_file && index->index->size() > 0)) {
      return Fail(SWE_ERR_INVALID_ARGUMENT, "swe_index_refresh_from_file: the index has changes not saved yet");
    }
    std::string error;
    swe::util::FileInPlace file;
    bool missing = false;
    if (!file.Open(path, &missing, &error)) return Fail(missing ? SWE_ERR_NOT_FOUND : SWE_ERR_IO, error);
    if (index->has_file && StillOurs(*index, file)) {
      std::vector<uint8_t> tail;
      const swe::IndexTail what = TailOf(*index, file, &tail);
      if (what != swe::IndexTail::kAppended) return SWE_OK;  // nothing new (a torn tail is no change)
      const size_t before = index->file.records;
      swe::IndexFileState state = index->file;
      swe_status s = FromStatus(swe::ApplyIndexLog(tail.data(), tail.size(), swe::capi::ToReadLimits(params),
                                                   index->index.get(), &index->docs, &state),
                                std::string(path));
      if (s == SWE_OK) {
        index->file = std::move(state);
        if (out_changed) *out_changed = index->file.records != before;
        return SWE_OK;
      }
      // A record that does not apply left the index half changed: read the file whole below.
    }
    std::vector<uint8_t> bytes;
    swe::util::FileId id;
    if (swe_status r = swe::capi::ReadSweStream(path, params, &bytes, swe::capi::MaxIndexFileBytes(params), &id);
        r != SWE_OK) {
      return r;
    }
    if (swe_status s = swe::capi::LoadInto(bytes.data(), bytes.size(), params, index); s != SWE_OK) {
      return Fail(s, std::string(path) + ": " + swe_last_error());
    }
    index->file_id = id;
    if (out_changed) *out_changed = 1;
    return SWE_OK;
  });
}

}  // extern "C"

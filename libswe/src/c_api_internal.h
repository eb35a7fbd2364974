// Shared by the C API's translation units: the handle types, the thread-local last error and the
// boundary guard that turns every C++ failure (status, exception, bad_alloc) into an swe_status.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "index_version.h"
#include "swe.h"
#include "swe/encoder.h"
#include "swe/index.h"
#include "swe/index_docs.h"
#include "swe/index_log.h"
#include "swe/model.h"
#include "swe/model_file.h"
#include "swe/status.h"
#include "swe/util/file.h"

struct swe_model {
  std::unique_ptr<swe::Model> model;
  std::string info_json;
};

// A caller-owned encoder (swe.h, "encoders"): made for the dims of its first call, remade when they change.
struct swe_encoder {
  const swe_model* model = nullptr;
  std::unique_ptr<swe::Encoder> encoder;
};

struct swe_index {
  // What reading calls read (index_version.h): std::atomic_load / std::atomic_store only.
  std::shared_ptr<const swe::capi::IndexVersion> published;
  // The writer's side, under `writer` (a swe::capi::Change, or a save): the index and documents the
  // next change edits, and the file they were loaded from or last written to (`has_file`): where the
  // index stands in it, the file's identity when it is a file (swe_c_index_file.cpp), and the changes
  // made since, which the next save appends as one record (docs/FORMAT.md, "Index change log").
  // `journal_complete` is false when a change cannot be recorded (the model changed, or the changes
  // outgrew a record): the next save writes the whole index.
  mutable std::mutex writer;
  std::unique_ptr<swe::Index> index;
  swe::IndexDocs docs;  // string ids, texts and metadata of some entries (saved with the index)
  bool has_file = false;
  swe::IndexFileState file;
  swe::util::FileId file_id;  // {0, 0}: bytes, not a file
  swe::IndexJournal journal;
  bool journal_complete = true;
};

namespace swe::capi {

// Records `message` as the calling thread's last error and returns `status`.
swe_status Fail(swe_status status, std::string message);
// Converts a core status (ok → SWE_OK), recording its message on failure; `context` prefixes it.
swe_status FromStatus(const Status& status, const std::string& context = std::string());

// Runs `body` (returning swe_status); no exception escapes.
template <typename Body>
swe_status Guard(Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(SWE_ERR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return Fail(SWE_ERR_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return Fail(SWE_ERR_INTERNAL, "internal error: unknown exception");
  }
}

// The C API's dtype codes are core's DType values (handles cast between them).
static_assert(SWE_DTYPE_F32 == static_cast<int>(DType::kF32) && SWE_DTYPE_F16 == static_cast<int>(DType::kF16) &&
              SWE_DTYPE_INT8 == static_cast<int>(DType::kInt8), "swe.h dtype codes must match swe::DType");

ReadLimits ToReadLimits(const swe_load_params* params);
// Reads a .swe file that may be a pipe or a device: stops at once on a bad magic
// (SWE_ERR_CORRUPT) and past the largest file `params` allow (SWE_ERR_TOO_LARGE).
// `max_file_bytes` (0: MaxFileBytes of the limits) bounds what is read; *id (may be null) receives the
// identity of the file read.
swe_status ReadSweStream(const char* path, const swe_load_params* params, std::vector<uint8_t>* out,
                         uint64_t max_file_bytes = 0, util::FileId* id = nullptr);
// A text argument is usable when it has data or is empty; View makes it a string_view.
bool ValidText(const char* data, size_t size);
std::string_view View(const char* data, size_t size);
// True when the `dims` floats at `x` are all zero: a text with no known word, similar to nothing.
bool IsZero(const float* x, uint32_t dims);
// SWE_ERR_INVALID_ARGUMENT unless a query has the index's dims.
swe_status CheckQueryDims(const IndexVersion& index, uint32_t query_dims);
// The up to k hits of one query scoring at least min_score; none for the zero vector. `candidates`:
// 0 for exact search, else binary search rescoring that many (swe_search_params).
swe_status SearchOne(const IndexVersion& index, const float* query, size_t k, float min_score, size_t candidates,
                     uint64_t* out_ids, float* out_scores, size_t* out_n);
// The version to search with `candidates`: one with binary codes (made once, as a change, when the
// index has none yet) when candidates is not 0.
std::shared_ptr<const IndexVersion> ReadForSearch(const swe_index& index, size_t candidates);
// SWE_ERR_INVALID_ARGUMENT unless params (NULL = defaults) suit a search for k hits; *candidates gets its count.
swe_status CheckSearchParams(const swe_search_params* params, size_t k, size_t* candidates);
// The largest index file a reader with `params` reads: its base and a change log of half of it.
uint64_t MaxIndexFileBytes(const swe_load_params* params);
// After a change: drops the journal once it could not be written as one record anyway (the next save
// writes the whole index). Changes are journaled only while the index has a file to append to.
void AfterChange(swe_index& index);
// Loads `bytes` into `handle` (a new one, or one refreshed whole), recording where it stands in them.
swe_status LoadInto(const uint8_t* data, size_t size, const swe_load_params* params, swe_index* handle);

}  // namespace swe::capi

#define SWE_CHECK_ARG(cond, message) \
  do {                               \
    if (!(cond)) return ::swe::capi::Fail(SWE_ERR_INVALID_ARGUMENT, (message)); \
  } while (0)

// The C API (libswe/include/swe.h) over core: the flat cosine index. A call that reads an index reads
// its published version (index_version.h: Read); a call that changes it is a Change.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "c_api_internal.h"
#include "swe/util/file.h"

using swe::capi::Fail;
using swe::capi::FromStatus;
using swe::capi::Guard;

namespace {

std::string Hex(uint32_t value) {
  char text[9];
  std::snprintf(text, sizeof text, "%08x", value);
  return text;
}

}  // namespace

namespace swe::capi {

std::shared_ptr<const IndexVersion> Read(const swe_index& index) { return std::atomic_load(&index.published); }

void Publish(swe_index& index) {
  std::atomic_store(&index.published, std::shared_ptr<const IndexVersion>(new IndexVersion{*index.index, index.docs}));
}

Change::Change(swe_index& index) : index_(index), lock_(index.writer) {}

Change::~Change() { Publish(index_); }

std::shared_ptr<const IndexVersion> ReadForSearch(const swe_index& index, size_t candidates) {
  std::shared_ptr<const IndexVersion> version = Read(index);
  if (candidates == 0 || version->index.binary_enabled()) return version;
  {
    // The first approximate search codes every row, once, as a change (swe.h: searches go on meanwhile).
    swe_index& writable = const_cast<swe_index&>(index);  // handles are made by this library, never const
    Change change(writable);
    if (!writable.index->binary_enabled()) writable.index->EnableBinary();
  }
  return Read(index);
}

}  // namespace swe::capi

extern "C" {

swe_status swe_index_create(uint32_t dims, int32_t dtype, swe_index** out) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(out != nullptr, "swe_index_create: out is NULL");
    *out = nullptr;
    SWE_CHECK_ARG(dtype == SWE_DTYPE_F32 || dtype == SWE_DTYPE_INT8, "index dtype must be f32 or int8");
    SWE_CHECK_ARG(dims > 0, "index dims must be positive");
    auto handle = std::make_unique<swe_index>();
    swe_status s = FromStatus(swe::Index::Create(dims, static_cast<swe::DType>(dtype), &handle->index));
    if (s != SWE_OK) return s;
    swe::capi::Publish(*handle);
    *out = handle.release();
    return SWE_OK;
  });
}

swe_status swe_index_load_from_bytes(const uint8_t* data, size_t size, const swe_load_params* params,
                                     swe_index** out) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(out != nullptr, "swe_index_load_from_bytes: out is NULL");
    *out = nullptr;
    SWE_CHECK_ARG(data != nullptr || size == 0, "swe_index_load_from_bytes: data is NULL");
    auto handle = std::make_unique<swe_index>();
    if (swe_status s = swe::capi::LoadInto(data, size, params, handle.get()); s != SWE_OK) return s;
    swe::capi::Publish(*handle);
    *out = handle.release();
    return SWE_OK;
  });
}

swe_status swe_index_load_from_file(const char* path, const swe_load_params* params, swe_index** out) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(out != nullptr, "swe_index_load_from_file: out is NULL");
    *out = nullptr;
    SWE_CHECK_ARG(path != nullptr, "swe_index_load_from_file: path is NULL");
    std::vector<uint8_t> bytes;
    swe::util::FileId id;
    const uint64_t max_bytes = swe::capi::MaxIndexFileBytes(params);
    if (swe_status r = swe::capi::ReadSweStream(path, params, &bytes, max_bytes, &id); r != SWE_OK) return r;
    auto handle = std::make_unique<swe_index>();
    if (swe_status s = swe::capi::LoadInto(bytes.data(), bytes.size(), params, handle.get()); s != SWE_OK) {
      return Fail(s, std::string(path) + ": " + swe_last_error());
    }
    handle->file_id = id;
    swe::capi::Publish(*handle);
    *out = handle.release();
    return SWE_OK;
  });
}

void swe_index_free(swe_index* index) { delete index; }

size_t swe_index_get_size(const swe_index* index) { return index ? swe::capi::Read(*index)->index.size() : 0; }

uint32_t swe_index_get_dims(const swe_index* index) { return index ? swe::capi::Read(*index)->index.dims() : 0; }

int32_t swe_index_get_dtype(const swe_index* index) {
  return index ? static_cast<int32_t>(swe::capi::Read(*index)->index.dtype()) : -1;
}

swe_status swe_index_add(swe_index* index, const uint64_t* ids, const float* vectors, size_t n) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index != nullptr, "swe_index_add: index is NULL");
    SWE_CHECK_ARG(n == 0 || (ids && vectors), "swe_index_add: NULL ids or vectors");
    if (n == 0) return SWE_OK;
    swe::capi::Change change(*index);
    // Integer ids and documents share the entries' numbers: replacing a document's vector alone would
    // leave its id, text and metadata on another text's vector.
    for (size_t i = 0; i < n; ++i) {
      if (const swe::IndexDoc* doc = index->docs.Get(ids[i])) {
        return Fail(SWE_ERR_INVALID_ARGUMENT, "entry " + std::to_string(ids[i]) + " holds the document '" + doc->id +
                                                  "': replace it with swe_index_add_docs() or remove it first");
      }
    }
    const swe_status s = FromStatus(index->index->AddBatch(ids, vectors, n));
    if (s != SWE_OK) return s;  // AddBatch checks every vector first: nothing was added
    if (index->has_file && index->journal_complete) {
      index->journal.BeginPuts(false);
      for (size_t i = 0; i < n; ++i) index->journal.Put(*index->index, ids[i], nullptr);
    }
    swe::capi::AfterChange(*index);
    return SWE_OK;
  });
}

swe_status swe_index_reserve(swe_index* index, size_t more) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index != nullptr, "swe_index_reserve: index is NULL");
    swe::capi::Change change(*index);
    return FromStatus(index->index->Reserve(more));
  });
}

swe_status swe_index_remove(swe_index* index, uint64_t id) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index != nullptr, "swe_index_remove: index is NULL");
    swe::capi::Change change(*index);
    swe_status s = FromStatus(index->index->Remove(id));
    if (s != SWE_OK) return s;
    index->docs.Erase(id);
    if (index->has_file && index->journal_complete) index->journal.Remove(id);
    swe::capi::AfterChange(*index);
    return SWE_OK;
  });
}

// Not through Guard: its error codes are not answers here (Read and Contains do not throw).
int32_t swe_index_contains(const swe_index* index, uint64_t id) {
  return index != nullptr && swe::capi::Read(*index)->index.Contains(id) ? 1 : 0;
}

swe_search_params swe_search_default_params(void) { return swe_search_params{0}; }

swe_status swe_index_search(const swe_index* index, const float* query, uint32_t query_dims, size_t k,
                            const swe_search_params* params, uint64_t* out_ids, float* out_scores, size_t* out_n) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index && query && out_n, "swe_index_search: NULL index, query or count");
    *out_n = 0;
    SWE_CHECK_ARG(k == 0 || (out_ids && out_scores), "swe_index_search: NULL output arrays");
    size_t candidates = 0;
    swe_status s = swe::capi::CheckSearchParams(params, k, &candidates);
    if (s != SWE_OK) return s;
    const auto version = swe::capi::ReadForSearch(*index, candidates);
    if (s = swe::capi::CheckQueryDims(*version, query_dims); s != SWE_OK) return s;
    return swe::capi::SearchOne(*version, query, k, -INFINITY, candidates, out_ids, out_scores, out_n);
  });
}

swe_status swe_index_set_model(swe_index* index, const swe_model* model) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index && model, "swe_index_set_model: NULL index or model");
    swe::capi::Change change(*index);
    const swe::Model& m = *model->model;
    if (index->index->model_name() == m.provenance().name && index->index->model_checksum() == m.checksum()) {
      return SWE_OK;
    }
    index->index->set_model(m.provenance().name, m.checksum());
    if (index->has_file) {  // the base holds the model: the next save writes it
      index->journal_complete = false;
      index->journal.Clear();
    }
    return SWE_OK;
  });
}

swe_status swe_index_check_model(const swe_index* index, const swe_model* model) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index && model, "swe_index_check_model: NULL index or model");
    const auto version = swe::capi::Read(*index);
    const swe::Index& ix = version->index;
    const swe::Model& m = *model->model;
    if (ix.model_checksum() != 0 && ix.model_checksum() != m.checksum()) {
      return Fail(SWE_ERR_INVALID_ARGUMENT, "the index was built with model '" + ix.model_name() + "' (checksum " +
                                                Hex(ix.model_checksum()) + "), not '" + m.provenance().name +
                                                "' (checksum " + Hex(m.checksum()) + ")");
    }
    if (ix.dims() > m.dims()) {
      return Fail(SWE_ERR_INVALID_ARGUMENT, "the index has " + std::to_string(ix.dims()) + " dimensions, the model only " +
                                                std::to_string(m.dims()));
    }
    return SWE_OK;
  });
}

}  // extern "C"

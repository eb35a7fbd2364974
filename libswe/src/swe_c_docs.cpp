// The C API (libswe/include/swe.h) over core: batch search with a score floor, and the documents
// (string ids, texts, metadata) that an index keeps beside its vectors. Calls read the published
// version or are a Change (index_version.h), as in swe_c_index.cpp.
#include <cmath>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "c_api_internal.h"
#include "swe/unicode.h"
#include "swe/util/json.h"

using swe::capi::Fail;
using swe::capi::FromStatus;
using swe::capi::Guard;

namespace swe::capi {

bool IsZero(const float* x, uint32_t dims) {
  for (uint32_t j = 0; j < dims; ++j) {
    if (x[j] != 0.0f) return false;
  }
  return true;
}

swe_status CheckQueryDims(const IndexVersion& index, uint32_t query_dims) {
  if (query_dims == index.index.dims()) return SWE_OK;
  return Fail(SWE_ERR_INVALID_ARGUMENT, "query has " + std::to_string(query_dims) + " dimensions, the index " +
                                            std::to_string(index.index.dims()));
}

swe_status SearchOne(const IndexVersion& index, const float* query, size_t k, float min_score, size_t candidates,
                     uint64_t* out_ids, float* out_scores, size_t* out_n) {
  *out_n = 0;
  if (k == 0 || IsZero(query, index.index.dims())) return SWE_OK;  // a text with no known word is similar to nothing
  std::vector<swe::SearchHit> hits;
  swe_status s = FromStatus(candidates == 0 ? index.index.Search(query, k, &hits)
                                            : index.index.SearchBinary(query, k, candidates, &hits));
  if (s != SWE_OK) return s;
  size_t n = 0;
  for (size_t i = 0; i < hits.size() && n < k && hits[i].score >= min_score; ++i, ++n) {
    out_ids[n] = hits[i].id;
    out_scores[n] = hits[i].score;
  }
  *out_n = n;
  return SWE_OK;
}

swe_status CheckSearchParams(const swe_search_params* params, size_t k, size_t* candidates) {
  *candidates = params ? params->candidates : 0;
  if (*candidates != 0 && *candidates < k) {
    return Fail(SWE_ERR_INVALID_ARGUMENT, "candidates must be 0 (exact search) or at least k (" + std::to_string(k) +
                                              "), not " + std::to_string(*candidates));
  }
  return SWE_OK;
}

}  // namespace swe::capi

namespace {

// Checks what core does not: NULL pointers, and that metadata is JSON. `i` names the document.
swe_status CheckDoc(const swe_doc& doc, size_t i) {
  const std::string which = "document " + std::to_string(i);
  for (const swe_text* part : {&doc.id, &doc.text, &doc.metadata}) {
    if (!swe::capi::ValidText(part->data, part->size)) return Fail(SWE_ERR_INVALID_ARGUMENT, which + ": NULL text");
    if (!swe::unicode::IsValidUtf8(swe::capi::View(part->data, part->size))) {
      return Fail(SWE_ERR_INVALID_ARGUMENT, which + ": not valid UTF-8");
    }
  }
  // Within the depth limit first: JSON writers recurse, so deeper metadata would crash whoever prints it.
  if (!swe::util::JsonDepthWithin(swe::capi::View(doc.metadata.data, doc.metadata.size))) {
    return Fail(SWE_ERR_INVALID_ARGUMENT, which + ": metadata: " + swe::util::JsonTooDeepMessage());
  }
  if (doc.metadata.size && !nlohmann::json::accept(swe::capi::View(doc.metadata.data, doc.metadata.size))) {
    return Fail(SWE_ERR_INVALID_ARGUMENT, which + ": metadata is not JSON");
  }
  return SWE_OK;
}

swe_text AsText(const std::string& s) { return swe_text{s.data(), s.size()}; }

}  // namespace

extern "C" {

swe_status swe_index_search_batch(const swe_index* index, const float* queries, size_t n_queries, uint32_t query_dims,
                                  size_t k, float min_score, const swe_search_params* params, uint64_t* out_ids,
                                  float* out_scores, size_t* out_counts) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index != nullptr, "swe_index_search_batch: index is NULL");
    SWE_CHECK_ARG(n_queries == 0 || (queries && out_counts), "swe_index_search_batch: NULL queries or counts");
    SWE_CHECK_ARG(n_queries == 0 || k == 0 || (out_ids && out_scores), "swe_index_search_batch: NULL output arrays");
    SWE_CHECK_ARG(!std::isnan(min_score), "swe_index_search_batch: min_score is NaN");
    size_t candidates = 0;
    swe_status s = swe::capi::CheckSearchParams(params, k, &candidates);
    if (s != SWE_OK) return s;
    const auto version = swe::capi::ReadForSearch(*index, candidates);  // one version for the whole batch
    s = swe::capi::CheckQueryDims(*version, query_dims);
    for (size_t q = 0; q < n_queries && s == SWE_OK; ++q) {
      s = swe::capi::SearchOne(*version, queries + q * query_dims, k, min_score, candidates, out_ids + q * k,
                               out_scores + q * k, &out_counts[q]);
    }
    return s;
  });
}

swe_status swe_index_get_ids(const swe_index* index, uint64_t* out_ids, size_t capacity, size_t* out_n) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index && out_n, "swe_index_get_ids: NULL index or count");
    const std::vector<uint64_t> ids = swe::capi::Read(*index)->index.ids();
    *out_n = ids.size();
    if (out_ids == nullptr) return SWE_OK;
    if (capacity < ids.size()) {
      return Fail(SWE_ERR_INVALID_ARGUMENT, "id buffer of " + std::to_string(capacity) + " is too small for " +
                                                std::to_string(ids.size()) + " ids");
    }
    std::copy(ids.begin(), ids.end(), out_ids);
    return SWE_OK;
  });
}

swe_status swe_index_add_docs(swe_index* index, const swe_doc* docs, const float* vectors, size_t n) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index != nullptr, "swe_index_add_docs: index is NULL");
    SWE_CHECK_ARG(n == 0 || (docs && vectors), "swe_index_add_docs: NULL docs or vectors");
    swe::capi::Change change(*index);
    // Every document is checked and given its entry before any goes in: a batch is added whole or not at all.
    uint64_t next = index->index->NextId();  // the entry id a new document gets
    std::unordered_set<std::string_view> seen;
    std::vector<uint64_t> entries(n);
    const uint32_t dims = index->index->dims();
    const bool journaled = index->has_file && index->journal_complete;
    // Should memory run out midway, the documents added before stay, journaled as they went in.
    struct Finish {
      swe_index& index;
      ~Finish() { swe::capi::AfterChange(index); }
    } finish{*index};
    for (size_t i = 0; i < n; ++i) {
      if (swe_status s = CheckDoc(docs[i], i); s != SWE_OK) return s;
      std::string_view id(docs[i].id.data, docs[i].id.size);
      if (id.empty()) return Fail(SWE_ERR_INVALID_ARGUMENT, "document " + std::to_string(i) + ": empty id");
      if (!seen.insert(id).second) return Fail(SWE_ERR_INVALID_ARGUMENT, "duplicate document id '" + std::string(id) + "'");
      for (uint32_t j = 0; j < dims; ++j) {
        if (!std::isfinite(vectors[i * dims + j])) return Fail(SWE_ERR_INVALID_ARGUMENT, "document " + std::to_string(i) + ": non-finite vector value");
      }
      if (!index->docs.Find(id, &entries[i])) {
        if (next == 0 && index->index->size() > 0) return Fail(SWE_ERR_TOO_LARGE, "no entry id left");
        entries[i] = next++;
      }
    }
    if (journaled && n > 0) index->journal.BeginPuts(true);
    for (size_t i = 0; i < n; ++i) {
      swe::IndexDoc doc{std::string(docs[i].id.data, docs[i].id.size),
                        std::string(swe::capi::View(docs[i].text.data, docs[i].text.size)),
                        std::string(swe::capi::View(docs[i].metadata.data, docs[i].metadata.size))};
      const std::string context = "document " + std::to_string(i);
      // Checked above: these fail only when memory runs out.
      if (swe_status s = FromStatus(index->docs.Put(entries[i], std::move(doc)), context); s != SWE_OK) return s;
      if (swe_status s = FromStatus(index->index->Add(entries[i], vectors + i * dims), context); s != SWE_OK) {
        if (!index->index->Contains(entries[i])) index->docs.Erase(entries[i]);
        return s;
      }
      if (journaled) index->journal.Put(*index->index, entries[i], index->docs.Get(entries[i]));
    }
    return SWE_OK;
  });
}

swe_status swe_index_find_doc(const swe_index* index, const char* id, size_t id_size, uint64_t* out_entry) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index && out_entry, "swe_index_find_doc: NULL index or output");
    SWE_CHECK_ARG(swe::capi::ValidText(id, id_size), "swe_index_find_doc: id is NULL");
    std::string_view key = swe::capi::View(id, id_size);
    if (!swe::capi::Read(*index)->docs.Find(key, out_entry)) return Fail(SWE_ERR_NOT_FOUND, "no document with id '" + std::string(key) + "'");
    return SWE_OK;
  });
}

swe_status swe_index_get_doc(const swe_index* index, uint64_t entry, swe_doc* out) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(index && out, "swe_index_get_doc: NULL index or output");
    // A copy for this thread (swe.h): the version read may be gone once another thread changes the index.
    thread_local swe::IndexDoc copy;
    {
      const auto version = swe::capi::Read(*index);
      const swe::IndexDoc* doc = version->docs.Get(entry);
      if (!doc) return Fail(SWE_ERR_NOT_FOUND, "entry " + std::to_string(entry) + " has no document");
      copy.id.assign(doc->id);
      copy.text.assign(doc->text);
      copy.metadata.assign(doc->metadata);
    }
    *out = swe_doc{AsText(copy.id), AsText(copy.text), AsText(copy.metadata)};
    return SWE_OK;
  });
}

size_t swe_index_get_doc_count(const swe_index* index) {
  return index ? swe::capi::Read(*index)->docs.size() : 0;
}

}  // extern "C"

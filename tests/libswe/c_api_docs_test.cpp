// libswe's C API: texts with no known word match nothing, the score floor, batch search, and the
// documents (string ids, texts, JSON metadata) an index saves beside its vectors.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "c_api_fixture.h"

namespace {

using namespace swe_c_api_test;

// Views only: the strings must outlive the document (literals do; temporaries would dangle).
swe_doc Doc(std::string_view id, std::string_view text, std::string_view meta = "") {
  return swe_doc{{id.data(), id.size()}, {text.data(), text.size()}, {meta.data(), meta.size()}};
}

std::string Str(swe_text t) { return std::string(t.data, t.size); }

class CApiDocsTest : public CApiTest {
 protected:
  // An index of kTexts' non-empty texts as documents "d0", "d1", ... with metadata {"n": i}.
  IndexPtr MakeDocIndex(int32_t dtype = SWE_DTYPE_F32) {
    swe_index* raw = nullptr;
    EXPECT_EQ(swe_index_create(kDims, dtype, &raw), SWE_OK);
    IndexPtr index(raw);
    for (size_t i = 0; i < kTexts.size(); ++i) {
      if (kTexts[i].empty()) continue;
      const std::string id = "d" + std::to_string(i), meta = "{\"n\": " + std::to_string(i) + "}";
      swe_doc doc = Doc(id, kTexts[i], meta);
      std::vector<float> v = Encode(kTexts[i]);
      EXPECT_EQ(swe_index_add_docs(index.get(), &doc, v.data(), 1), SWE_OK) << swe_last_error();
    }
    return index;
  }

  // The string ids of the hits of `text`.
  std::vector<std::string> Hits(const swe_index* index, const std::string& text, size_t k, float min_score) {
    std::vector<float> q = Encode(text);
    std::vector<uint64_t> ids(k);
    std::vector<float> scores(k);
    size_t n = 99;
    EXPECT_EQ(swe_index_search_batch(index, q.data(), 1, kDims, k, min_score, nullptr, ids.data(), scores.data(), &n), SWE_OK)
        << swe_last_error();
    std::vector<std::string> out;
    for (size_t i = 0; i < n; ++i) {
      swe_doc doc;
      EXPECT_EQ(swe_index_get_doc(index, ids[i], &doc), SWE_OK) << swe_last_error();
      out.push_back(Str(doc.id));
      EXPECT_GE(scores[i], min_score);
    }
    return out;
  }
};

TEST_F(CApiDocsTest, KnownWordCount) {
  uint32_t n = 99;
  ASSERT_EQ(swe_model_count_known_words(model_.get(), "zzz qqq", 7, &n), SWE_OK);
  EXPECT_EQ(n, 0u);
  ASSERT_EQ(swe_model_count_known_words(model_.get(), "the cat zzz", 11, &n), SWE_OK);
  EXPECT_EQ(n, 2u);
  ASSERT_EQ(swe_model_count_known_words(model_.get(), nullptr, 0, &n), SWE_OK);
  EXPECT_EQ(n, 0u);
  for (const std::string& text : kTexts) {
    uint32_t encoded = 0;
    CoreEncode(text, 0, &encoded);
    ASSERT_EQ(swe_model_count_known_words(model_.get(), text.data(), text.size(), &n), SWE_OK);
    EXPECT_EQ(n, encoded) << text;
  }
  EXPECT_EQ(swe_model_count_known_words(model_.get(), nullptr, 3, &n), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_model_count_known_words(nullptr, "a", 1, &n), SWE_ERR_INVALID_ARGUMENT);
}

TEST_F(CApiDocsTest, UnknownQueryHasNoHits) {
  IndexPtr index = MakeIndex(SWE_DTYPE_F32);
  std::vector<float> q = Encode("zzqqxx");
  uint64_t ids[4];
  float scores[4];
  size_t n = 99;
  ASSERT_EQ(swe_index_search(index.get(), q.data(), kDims, 4, nullptr, ids, scores, &n), SWE_OK);
  EXPECT_EQ(n, 0u);
  ASSERT_EQ(swe_index_search_batch(index.get(), q.data(), 1, kDims, 4, -INFINITY, nullptr, ids, scores, &n), SWE_OK);
  EXPECT_EQ(n, 0u);
}

TEST_F(CApiDocsTest, BatchSearchEqualsSingleAndAppliesTheFloor) {
  IndexPtr index = MakeIndex(SWE_DTYPE_F32);
  const std::vector<std::string> queries = {kTexts[0], "zzqqxx", kTexts[4]};
  std::vector<float> rows;
  for (const std::string& q : queries) {
    std::vector<float> v = Encode(q);
    rows.insert(rows.end(), v.begin(), v.end());
  }
  constexpr size_t k = 3;
  std::vector<uint64_t> ids(queries.size() * k);
  std::vector<float> scores(queries.size() * k);
  std::vector<size_t> counts(queries.size());
  ASSERT_EQ(swe_index_search_batch(index.get(), rows.data(), queries.size(), kDims, k, -INFINITY, nullptr, ids.data(),
                                   scores.data(), counts.data()),
            SWE_OK);
  EXPECT_EQ(counts[1], 0u);
  for (size_t q = 0; q < queries.size(); ++q) {
    uint64_t one_ids[k];
    float one_scores[k];
    size_t n = 0;
    ASSERT_EQ(swe_index_search(index.get(), rows.data() + q * kDims, kDims, k, nullptr, one_ids, one_scores, &n), SWE_OK);
    ASSERT_EQ(counts[q], n);
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(ids[q * k + i], one_ids[i]);
      EXPECT_EQ(scores[q * k + i], one_scores[i]);
    }
  }
  // A floor between the best and the second score keeps exactly the best hit.
  const float floor = (scores[0] + scores[1]) / 2;
  ASSERT_EQ(swe_index_search_batch(index.get(), rows.data(), 1, kDims, k, floor, nullptr, ids.data(), scores.data(),
                                   counts.data()),
            SWE_OK);
  EXPECT_EQ(counts[0], 1u);
  EXPECT_EQ(swe_index_search_batch(index.get(), rows.data(), 1, kDims, k, NAN, nullptr, ids.data(), scores.data(),
                                   counts.data()),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_search_batch(index.get(), rows.data(), 1, kDims + 1, k, 0, nullptr, ids.data(), scores.data(),
                                   counts.data()),
            SWE_ERR_INVALID_ARGUMENT);
}

// swe_search_params: candidates = 0 (or NULL params) is exact search; a candidate count reaching the
// index's size gives exact search's hits and scores; fewer candidates give a subset of the entries with
// their exact scores; fewer candidates than k is refused.
TEST_F(CApiDocsTest, ApproximateSearchParams) {
  constexpr uint32_t dims = 64;
  constexpr size_t n = 3000, k = 10;
  swe_index* raw = nullptr;
  ASSERT_EQ(swe_index_create(dims, SWE_DTYPE_INT8, &raw), SWE_OK);
  IndexPtr index(raw);
  uint32_t state = 12345;  // a small LCG: vectors with a shared offset, as sentence vectors have
  auto next = [&state] { state = state * 1664525u + 1013904223u; return float(state >> 8) / float(1 << 24) - 0.5f; };
  std::vector<float> rows(n * dims);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = next() + (i % dims < 8 ? 1.0f : 0.0f);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i * 7;
  ASSERT_EQ(swe_index_add(index.get(), ids.data(), rows.data(), n), SWE_OK);
  const float* query = rows.data() + 5 * dims;  // entry 35's vector

  auto search = [&](const swe_search_params* params, std::vector<uint64_t>* out_ids, std::vector<float>* out_scores) {
    out_ids->assign(k, 0), out_scores->assign(k, 0);
    size_t got = 0;
    const swe_status s = swe_index_search(index.get(), query, dims, k, params, out_ids->data(), out_scores->data(), &got);
    out_ids->resize(got), out_scores->resize(got);
    return s;
  };
  std::vector<uint64_t> exact_ids, got_ids;
  std::vector<float> exact_scores, got_scores;
  ASSERT_EQ(search(nullptr, &exact_ids, &exact_scores), SWE_OK);
  ASSERT_EQ(exact_ids.size(), k);
  EXPECT_EQ(exact_ids[0], 35u);
  swe_search_params params = swe_search_default_params();
  EXPECT_EQ(params.candidates, 0u);
  ASSERT_EQ(search(&params, &got_ids, &got_scores), SWE_OK);
  EXPECT_EQ(got_ids, exact_ids);
  params.candidates = n;
  ASSERT_EQ(search(&params, &got_ids, &got_scores), SWE_OK);
  EXPECT_EQ(got_ids, exact_ids);
  EXPECT_EQ(got_scores, exact_scores);
  params.candidates = 50;
  ASSERT_EQ(search(&params, &got_ids, &got_scores), SWE_OK) << swe_last_error();
  ASSERT_EQ(got_ids.size(), k);
  EXPECT_EQ(got_ids[0], 35u);  // the query itself is the nearest code too
  // Every approximate hit has its exact score: compare with an exact search for all entries.
  std::vector<uint64_t> all_ids(n);
  std::vector<float> all_scores(n);
  size_t all = 0;
  ASSERT_EQ(swe_index_search(index.get(), query, dims, n, nullptr, all_ids.data(), all_scores.data(), &all), SWE_OK);
  for (size_t i = 0; i < got_ids.size(); ++i) {
    const size_t at = std::find(all_ids.begin(), all_ids.end(), got_ids[i]) - all_ids.begin();
    ASSERT_LT(at, n);
    EXPECT_EQ(got_scores[i], all_scores[at]);
  }
  const std::vector<uint64_t> approx_ids = got_ids;
  const std::vector<float> approx_scores = got_scores;
  params.candidates = k - 1;
  EXPECT_EQ(search(&params, &got_ids, &got_scores), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("at least k"), std::string::npos) << swe_last_error();

  // The batch form: each query as the single search gives it; the score floor still applies.
  params.candidates = 50;
  std::vector<uint64_t> batch_ids(2 * k);
  std::vector<float> batch_scores(2 * k);
  size_t counts[2] = {0, 0};
  ASSERT_EQ(swe_index_search_batch(index.get(), query, 2, dims, k, -INFINITY, &params, batch_ids.data(),
                                   batch_scores.data(), counts), SWE_OK);
  ASSERT_EQ(counts[0], k);
  EXPECT_EQ(std::vector<uint64_t>(batch_ids.begin(), batch_ids.begin() + k), approx_ids);
  ASSERT_EQ(swe_index_search_batch(index.get(), query, 1, dims, k, approx_scores[1], &params, batch_ids.data(),
                                   batch_scores.data(), counts), SWE_OK);
  EXPECT_GE(counts[0], 2u);
  EXPECT_LT(counts[0], k);
  params.candidates = 3;
  EXPECT_EQ(swe_index_search_batch(index.get(), query, 1, dims, k, -INFINITY, &params, batch_ids.data(),
                                   batch_scores.data(), counts), SWE_ERR_INVALID_ARGUMENT);
}

TEST_F(CApiDocsTest, DocumentsGetFindRemoveIds) {
  IndexPtr index = MakeDocIndex();
  EXPECT_EQ(swe_index_get_size(index.get()), 5u);
  EXPECT_EQ(swe_index_get_doc_count(index.get()), 5u);
  EXPECT_EQ(Hits(index.get(), kTexts[1], 2, -INFINITY).front(), "d1");

  uint64_t entry = 0;
  ASSERT_EQ(swe_index_find_doc(index.get(), "d4", 2, &entry), SWE_OK);
  swe_doc doc;
  ASSERT_EQ(swe_index_get_doc(index.get(), entry, &doc), SWE_OK);
  EXPECT_EQ(Str(doc.id), "d4");
  EXPECT_EQ(Str(doc.text), kTexts[4]);
  EXPECT_EQ(Str(doc.metadata), "{\"n\": 4}");
  EXPECT_EQ(swe_index_find_doc(index.get(), "nope", 4, &entry), SWE_ERR_NOT_FOUND);
  EXPECT_NE(std::string(swe_last_error()).find("nope"), std::string::npos);

  // Re-adding an id replaces its entry in place.
  ASSERT_EQ(swe_index_find_doc(index.get(), "d0", 2, &entry), SWE_OK);
  swe_doc again = Doc("d0", "new text");
  std::vector<float> v = Encode(kTexts[5]);
  ASSERT_EQ(swe_index_add_docs(index.get(), &again, v.data(), 1), SWE_OK);
  uint64_t same = 0;
  ASSERT_EQ(swe_index_find_doc(index.get(), "d0", 2, &same), SWE_OK);
  EXPECT_EQ(same, entry);
  ASSERT_EQ(swe_index_get_doc(index.get(), entry, &doc), SWE_OK);
  EXPECT_EQ(Str(doc.text), "new text");
  EXPECT_EQ(Str(doc.metadata), "");
  EXPECT_EQ(swe_index_get_size(index.get()), 5u);

  // Removing the entry removes the document; ids() lists what is left.
  ASSERT_EQ(swe_index_remove(index.get(), entry), SWE_OK);
  EXPECT_EQ(swe_index_find_doc(index.get(), "d0", 2, &same), SWE_ERR_NOT_FOUND);
  EXPECT_EQ(swe_index_get_doc(index.get(), entry, &doc), SWE_ERR_NOT_FOUND);
  size_t n = 0;
  ASSERT_EQ(swe_index_get_ids(index.get(), nullptr, 0, &n), SWE_OK);
  ASSERT_EQ(n, 4u);
  std::vector<uint64_t> ids(n);
  EXPECT_EQ(swe_index_get_ids(index.get(), ids.data(), 3, &n), SWE_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(swe_index_get_ids(index.get(), ids.data(), ids.size(), &n), SWE_OK);
  std::vector<std::string> names;
  for (uint64_t id : ids) {
    ASSERT_EQ(swe_index_get_doc(index.get(), id, &doc), SWE_OK);
    names.push_back(Str(doc.id));
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"d1", "d3", "d4", "d5"}));
}

TEST_F(CApiDocsTest, AddDocsRejectsBadDocuments) {
  IndexPtr index = MakeDocIndex();
  std::vector<float> v = Encode(kTexts[0]);
  std::vector<float> two(v);
  two.insert(two.end(), v.begin(), v.end());
  const std::vector<std::vector<swe_doc>> bad = {
      {Doc("", "empty id")},
      {Doc("x", "t", "{not json")},
      {Doc("x", "bad \xff utf-8")},
      {Doc("y", "a"), Doc("y", "b")},  // duplicate in one call
  };
  for (const std::vector<swe_doc>& docs : bad) {
    EXPECT_EQ(swe_index_add_docs(index.get(), docs.data(), two.data(), docs.size()), SWE_ERR_INVALID_ARGUMENT);
    const std::string error = swe_last_error();
    EXPECT_NE(error, "");
    // The document is named once, by its place in the call.
    EXPECT_EQ(error.find("document"), error.rfind("document")) << error;
  }
  std::vector<float> nan(v);
  nan[3] = NAN;
  swe_doc doc = Doc("z", "t");
  EXPECT_EQ(swe_index_add_docs(index.get(), &doc, nan.data(), 1), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_find_doc(index.get(), "z", 1, nullptr), SWE_ERR_INVALID_ARGUMENT);
  uint64_t entry;
  EXPECT_EQ(swe_index_find_doc(index.get(), "z", 1, &entry), SWE_ERR_NOT_FOUND);
  // A failed call adds nothing: not even the first of a duplicate pair.
  EXPECT_EQ(swe_index_get_doc_count(index.get()), 5u);
  EXPECT_EQ(swe_index_find_doc(index.get(), "y", 1, &entry), SWE_ERR_NOT_FOUND);
  EXPECT_EQ(swe_index_find_doc(index.get(), "x", 1, &entry), SWE_ERR_NOT_FOUND);
  EXPECT_EQ(swe_index_add_docs(index.get(), nullptr, v.data(), 1), SWE_ERR_INVALID_ARGUMENT);
}

TEST_F(CApiDocsTest, AddDocsIsAllOrNothing) {
  IndexPtr index = MakeDocIndex();
  const std::vector<float> before = Encode(kTexts[0]);
  const std::vector<std::string> hits = Hits(index.get(), kTexts[0], 5, -INFINITY);
  std::vector<float> three;
  for (size_t i = 0; i < 3; ++i) three.insert(three.end(), before.begin(), before.end());
  // A replaced document, a new one, then a bad one (each kind of failure): the first two stay out too.
  const std::vector<std::vector<swe_doc>> bad = {
      {Doc("d0", "replaced"), Doc("new", "a"), Doc("x", "t", "{not json")},
      {Doc("d0", "replaced"), Doc("new", "a"), Doc("new", "b")},
      {Doc("d0", "replaced"), Doc("new", "a"), Doc("", "empty id")},
  };
  for (const std::vector<swe_doc>& docs : bad) {
    EXPECT_EQ(swe_index_add_docs(index.get(), docs.data(), three.data(), docs.size()), SWE_ERR_INVALID_ARGUMENT);
  }
  std::vector<float> nan(three);
  nan.back() = NAN;
  const std::vector<swe_doc> docs = {Doc("d0", "replaced"), Doc("new", "a"), Doc("z", "t")};
  EXPECT_EQ(swe_index_add_docs(index.get(), docs.data(), nan.data(), docs.size()), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_get_size(index.get()), 5u);
  EXPECT_EQ(swe_index_get_doc_count(index.get()), 5u);
  uint64_t entry = 0;
  EXPECT_EQ(swe_index_find_doc(index.get(), "new", 3, &entry), SWE_ERR_NOT_FOUND);
  ASSERT_EQ(swe_index_find_doc(index.get(), "d0", 2, &entry), SWE_OK);
  swe_doc doc;
  ASSERT_EQ(swe_index_get_doc(index.get(), entry, &doc), SWE_OK);
  EXPECT_EQ(Str(doc.text), kTexts[0]);
  EXPECT_EQ(Hits(index.get(), kTexts[0], 5, -INFINITY), hits);
}

// Integer ids and documents share the entry ids: a vector added under a document's entry would carry
// that document's id, text and metadata (and be saved so), so it is refused, and nothing of its batch
// is added.
TEST_F(CApiDocsTest, AVectorAddedUnderADocumentsEntryIsRefused) {
  IndexPtr index = MakeDocIndex();
  uint64_t entry = 0;
  ASSERT_EQ(swe_index_find_doc(index.get(), "d0", 2, &entry), SWE_OK);
  const std::vector<float> other = Encode(kTexts[4]);
  EXPECT_EQ(swe_index_add(index.get(), &entry, other.data(), 1), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("'d0'"), std::string::npos) << swe_last_error();
  const uint64_t ids[2] = {1000, entry};
  std::vector<float> two(other);
  two.insert(two.end(), other.begin(), other.end());
  EXPECT_EQ(swe_index_add(index.get(), ids, two.data(), 2), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_index_contains(index.get(), 1000), 0);
  EXPECT_EQ(swe_index_get_size(index.get()), 5u);
  // The document still answers for its own text, not for the refused vector's.
  EXPECT_EQ(Hits(index.get(), kTexts[0], 1, -INFINITY), std::vector<std::string>{"d0"});
  EXPECT_EQ(Hits(index.get(), kTexts[4], 1, -INFINITY), std::vector<std::string>{"d4"});
  // Removed first, the entry takes a vector alone.
  ASSERT_EQ(swe_index_remove(index.get(), entry), SWE_OK);
  ASSERT_EQ(swe_index_add(index.get(), &entry, other.data(), 1), SWE_OK) << swe_last_error();
  swe_doc doc;
  EXPECT_EQ(swe_index_get_doc(index.get(), entry, &doc), SWE_ERR_NOT_FOUND);
}

// Header flags: offset 36, little-endian.
uint32_t Flags(const uint8_t* file) { return file[36] | file[37] << 8 | file[38] << 16 | uint32_t(file[39]) << 24; }

TEST_F(CApiDocsTest, DocumentsSurviveSaveAndOldFilesStillLoad) {
  for (int32_t dtype : {SWE_DTYPE_F32, SWE_DTYPE_INT8}) {
    IndexPtr index = MakeDocIndex(dtype);
    std::string path = TempPath("docs.swi");
    ASSERT_EQ(swe_index_save_to_file(index.get(), path.c_str()), SWE_OK) << swe_last_error();
    swe_index* raw = nullptr;
    ASSERT_EQ(swe_index_load_from_file(path.c_str(), nullptr, &raw), SWE_OK) << swe_last_error();
    IndexPtr loaded(raw);
    std::remove(path.c_str());
    EXPECT_EQ(swe_index_get_doc_count(loaded.get()), 5u);
    EXPECT_EQ(Hits(loaded.get(), kTexts[4], 3, -INFINITY), Hits(index.get(), kTexts[4], 3, -INFINITY));
    uint64_t entry = 0;
    ASSERT_EQ(swe_index_find_doc(loaded.get(), "d3", 2, &entry), SWE_OK);
    swe_doc doc;
    ASSERT_EQ(swe_index_get_doc(loaded.get(), entry, &doc), SWE_OK);
    EXPECT_EQ(Str(doc.text), "zzz qqq");
    EXPECT_EQ(Str(doc.metadata), "{\"n\": 3}");
  }
  // An index without documents has no flag of its kind (bit 3, 8, says its checksum is FrameHash:
  // docs/FORMAT.md); one with documents sets flag bit 1, which older readers refuse by name.
  uint8_t* data = nullptr;
  size_t size = 0;
  IndexPtr plain = MakeIndex(SWE_DTYPE_F32);
  ASSERT_EQ(swe_index_save_to_bytes(plain.get(), &data, &size), SWE_OK);
  EXPECT_EQ(Flags(data), 8u);
  swe_index* raw = nullptr;
  ASSERT_EQ(swe_index_load_from_bytes(data, size, nullptr, &raw), SWE_OK);
  EXPECT_EQ(swe_index_get_doc_count(raw), 0u);
  EXPECT_EQ(swe_index_get_size(raw), 4u);
  swe_index_free(raw);
  swe_free_bytes(data);
  IndexPtr docs = MakeDocIndex();
  ASSERT_EQ(swe_index_save_to_bytes(docs.get(), &data, &size), SWE_OK);
  EXPECT_EQ(Flags(data), 2u | 8u);
  // A flag this reader does not know is refused with a message, not misread.
  std::vector<uint8_t> future(data, data + size);
  future[36] |= 16;  // bits 2 and 3 (4, 8: a raw payload, the frame hash) are known since
  EXPECT_EQ(swe_index_load_from_bytes(future.data(), future.size(), nullptr, &raw), SWE_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(swe_last_error()).find("flags"), std::string::npos) << swe_last_error();
  swe_free_bytes(data);
}

// Metadata nested deeper than 128 levels is refused (JSON writers recurse: it would crash them later).
TEST_F(CApiDocsTest, MetadataNestedTooDeepIsRefused) {
  swe_index* raw = nullptr;
  ASSERT_EQ(swe_index_create(kDims, SWE_DTYPE_F32, &raw), SWE_OK);
  IndexPtr index(raw);
  std::vector<float> v = Encode("the cat");
  const std::string deep = std::string(200'000, '[') + std::string(200'000, ']');
  swe_doc doc = Doc("d", "the cat", deep);
  EXPECT_EQ(swe_index_add_docs(index.get(), &doc, v.data(), 1), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("nested deeper than 128 levels"), std::string::npos)
      << swe_last_error();
  EXPECT_EQ(swe_index_get_doc_count(index.get()), 0u);
  const std::string ok = std::string(128, '[') + std::string(128, ']');
  doc = Doc("d", "the cat", ok);
  EXPECT_EQ(swe_index_add_docs(index.get(), &doc, v.data(), 1), SWE_OK) << swe_last_error();
}

}  // namespace

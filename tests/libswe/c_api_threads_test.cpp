// The C API's thread-safety promise (swe.h): one loaded model and one index, used from many threads at
// once through every read-only call (encode, batch, similarity, analyze, info, search, contains,
// check, save, approximate search; each thread's own swe_encoder too), give the single-threaded
// results bit for bit; the threads share a freshly loaded index, so its binary codes are built by
// whichever approximate search comes first. And one index changed by several threads (add, add_docs,
// remove, set_model) while others read it through every call, with no lock of the caller's: each
// reader sees whole changes only, and the writers' changes all land; a search never waits for a long
// change or save (it reads the version before it). In the ThreadSanitizer build
// (preset "tsan", run by scripts/test.sh) the same tests also prove the calls free of data races.
#include "swe.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/test_models.h"
#include "fuzz/fuzz_models.h"

namespace {

constexpr uint32_t kDims = 8;  // the fuzzers' seed models (every subword kind)
constexpr int kThreads = 8;
constexpr int kRounds = 40;
const std::vector<std::string> kTexts = {"The cat sat on the mat.", "unaffable cats", "", "zzz qqq",
                                         "Straße CAFÉ café Cafe", "日本語のテキスト 😀", "the Cat, the cat",
                                         "\xff\xfe broken \xc3 utf-8"};

struct Reference {
  std::vector<std::vector<float>> vectors;       // per text
  std::vector<std::vector<uint64_t>> hit_ids;    // top 5 per text
  std::vector<std::vector<float>> hit_scores;
  std::vector<std::vector<uint64_t>> binary_ids;  // top 3 of 4 candidates per text
  std::vector<std::vector<float>> binary_scores;
  std::vector<size_t> tokens;                    // words per text
  std::vector<float> similarity;                 // text i vs text i + 1
  std::string info;
  std::vector<uint8_t> index_bytes;
};

// Everything one thread (or the reference pass) computes; false on any failed call.
bool Compute(const swe_model* model, const swe_index* index, Reference* r) {
  const size_t n = kTexts.size();
  r->vectors.assign(n, std::vector<float>(kDims));
  r->hit_ids.assign(n, std::vector<uint64_t>(5));
  r->hit_scores.assign(n, std::vector<float>(5));
  r->binary_ids.assign(n, std::vector<uint64_t>(3));
  r->binary_scores.assign(n, std::vector<float>(3));
  r->tokens.assign(n, 0);
  r->similarity.assign(n, 0);
  std::vector<swe_text> batch;
  for (const std::string& t : kTexts) batch.push_back({t.data(), t.size()});
  std::vector<float> batch_out(n * kDims);
  if (swe_model_encode_batch(model, batch.data(), n, nullptr, batch_out.data(), batch_out.size(), nullptr) != SWE_OK) return false;
  for (size_t i = 0; i < n; ++i) {
    const std::string& t = kTexts[i];
    if (swe_model_encode_text(model, t.data(), t.size(), nullptr, r->vectors[i].data(), kDims, nullptr) != SWE_OK) return false;
    if (std::memcmp(r->vectors[i].data(), batch_out.data() + i * kDims, kDims * sizeof(float)) != 0) return false;
    size_t hits = 0;
    if (swe_index_search(index, r->vectors[i].data(), kDims, 5, nullptr, r->hit_ids[i].data(),
                         r->hit_scores[i].data(), &hits) != SWE_OK) {
      return false;
    }
    r->hit_ids[i].resize(hits), r->hit_scores[i].resize(hits);
    swe_search_params params = swe_search_default_params();
    params.candidates = 4;
    if (swe_index_search(index, r->vectors[i].data(), kDims, 3, &params, r->binary_ids[i].data(),
                                     r->binary_scores[i].data(), &hits) != SWE_OK) {
      return false;
    }
    r->binary_ids[i].resize(hits), r->binary_scores[i].resize(hits);
    if (swe_model_analyze_text(model, t.data(), t.size(), nullptr, 0, &r->tokens[i]) != SWE_OK) return false;
    const std::string& u = kTexts[(i + 1) % n];
    if (swe_model_compute_similarity(model, t.data(), t.size(), u.data(), u.size(), nullptr, &r->similarity[i]) !=
        SWE_OK) {
      return false;
    }
  }
  // An encoder of this thread's own (swe_encoder): the same vectors, one by one and as a batch.
  swe_encoder* encoder = nullptr;
  if (swe_encoder_new(model, &encoder) != SWE_OK) return false;
  bool same = swe_encoder_encode_batch(encoder, batch.data(), n, nullptr, batch_out.data(), batch_out.size(), nullptr) == SWE_OK;
  for (size_t i = 0; i < n && same; ++i) {
    std::vector<float> v(kDims);
    same = swe_encoder_encode_text(encoder, kTexts[i].data(), kTexts[i].size(), nullptr, v.data(), kDims, nullptr) ==
               SWE_OK &&
           std::memcmp(v.data(), r->vectors[i].data(), kDims * sizeof(float)) == 0 &&
           std::memcmp(v.data(), batch_out.data() + i * kDims, kDims * sizeof(float)) == 0;
  }
  swe_encoder_free(encoder);
  if (!same) return false;
  r->info = swe_model_get_info_json(model);
  if (swe_index_check_model(index, model) != SWE_OK || swe_index_get_size(index) != n) return false;
  if (swe_index_contains(index, 3) != 1 || swe_index_contains(index, 999) != 0) return false;
  uint8_t* bytes = nullptr;
  size_t size = 0;
  if (swe_index_save_to_bytes(index, &bytes, &size) != SWE_OK) return false;
  r->index_bytes.assign(bytes, bytes + size);
  swe_free_bytes(bytes);
  // A failing call: its message is this thread's own.
  float v[1];
  if (swe_model_encode_text(model, "cat", 3, nullptr, v, 1, nullptr) != SWE_ERR_INVALID_ARGUMENT) return false;
  return std::strlen(swe_last_error()) > 0;
}

bool Same(const Reference& a, const Reference& b) {
  return a.vectors == b.vectors && a.hit_ids == b.hit_ids && a.hit_scores == b.hit_scores &&
         a.binary_ids == b.binary_ids && a.binary_scores == b.binary_scores && a.tokens == b.tokens &&
         a.similarity == b.similarity && a.info == b.info && a.index_bytes == b.index_bytes;
}

// (subword kind, model dtype, index dtype)
class CApiThreads : public ::testing::TestWithParam<std::tuple<swe::SubwordKind, swe::DType, int32_t>> {};

TEST_P(CApiThreads, OneModelAndOneIndexFromManyThreads) {
  const auto [subword, model_dtype, index_dtype] = GetParam();
  const std::vector<uint8_t> bytes = swe::testing::ModelBytes(swe::fuzz::SeedContents(subword), model_dtype);
  swe_model* m = nullptr;
  ASSERT_EQ(swe_model_load_from_bytes(bytes.data(), bytes.size(), nullptr, &m), SWE_OK) << swe_last_error();
  std::unique_ptr<swe_model, void (*)(swe_model*)> model(m, swe_model_free);
  ASSERT_EQ(swe_model_get_dims(model.get()), kDims);
  swe_index* x = nullptr;
  ASSERT_EQ(swe_index_create(kDims, index_dtype, &x), SWE_OK) << swe_last_error();
  std::unique_ptr<swe_index, void (*)(swe_index*)> index(x, swe_index_free);
  ASSERT_EQ(swe_index_set_model(index.get(), model.get()), SWE_OK);
  std::vector<float> all(kTexts.size() * kDims);
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < kTexts.size(); ++i) {
    ASSERT_EQ(swe_model_encode_text(model.get(), kTexts[i].data(), kTexts[i].size(), nullptr, &all[i * kDims], kDims,
                                    nullptr), SWE_OK);
    ids.push_back(i);
  }
  ASSERT_EQ(swe_index_add(index.get(), ids.data(), all.data(), ids.size()), SWE_OK) << swe_last_error();

  Reference expected;
  ASSERT_TRUE(Compute(model.get(), index.get(), &expected)) << swe_last_error();
  // The same entries without codes yet: the first approximate search of some thread builds them.
  ASSERT_EQ(swe_index_load_from_bytes(expected.index_bytes.data(), expected.index_bytes.size(), nullptr, &x), SWE_OK);
  std::unique_ptr<swe_index, void (*)(swe_index*)> fresh(x, swe_index_free);
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        Reference got;
        failures[t] += !Compute(model.get(), fresh.get(), &got) || !Same(got, expected);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

// The codes' lazy build itself under contention: threads released together all make their first
// approximate search on an index large enough that building its codes takes a while, so several of
// them ask for the codes while they are being built.
TEST(CApiThreadsBinary, FirstApproximateSearchFromManyThreadsAtOnce) {
  constexpr uint32_t dims = 32;
  constexpr size_t n = 20000, k = 5;
  std::vector<float> rows(n * dims);
  uint32_t state = 7;
  for (float& v : rows) v = float((state = state * 1664525u + 1013904223u) >> 8) / float(1 << 24) - 0.3f;
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i;
  swe_index* x = nullptr;
  ASSERT_EQ(swe_index_create(dims, SWE_DTYPE_INT8, &x), SWE_OK);
  std::unique_ptr<swe_index, void (*)(swe_index*)> reference(x, swe_index_free);
  ASSERT_EQ(swe_index_add(reference.get(), ids.data(), rows.data(), n), SWE_OK);
  ASSERT_EQ(swe_index_create(dims, SWE_DTYPE_INT8, &x), SWE_OK);
  std::unique_ptr<swe_index, void (*)(swe_index*)> shared(x, swe_index_free);
  ASSERT_EQ(swe_index_add(shared.get(), ids.data(), rows.data(), n), SWE_OK);
  swe_search_params params = swe_search_default_params();
  params.candidates = 50;
  auto search = [&](const swe_index* index, int t, std::vector<uint64_t>* out) {
    out->assign(k, 0);
    std::vector<float> scores(k);
    size_t got = 0;
    return swe_index_search(index, rows.data() + t * dims, dims, k, &params, out->data(), scores.data(),
                                        &got) == SWE_OK && got == k;
  };
  std::vector<std::vector<uint64_t>> expected(kThreads), got(kThreads);
  for (int t = 0; t < kThreads; ++t) ASSERT_TRUE(search(reference.get(), t, &expected[t]));
  std::atomic<int> waiting{kThreads};
  std::vector<int> ok(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      waiting.fetch_sub(1);
      while (waiting.load() > 0) {}  // all start at once
      ok[t] = search(shared.get(), t, &got[t]);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_TRUE(ok[t]) << "thread " << t;
    EXPECT_EQ(got[t], expected[t]) << "thread " << t;
  }
}

// Readers and writers on one index at once, the callers holding no lock: the library's (swe.h).
class CApiThreadsChange : public ::testing::TestWithParam<int32_t> {};

constexpr uint32_t kChangeDims = kDims;  // the model's (swe_index_check_model)
constexpr int kBase = 50;              // documents "base-N" that no writer touches
constexpr int kWriters = 3, kReaders = 5;
constexpr int kWriterRounds = 60, kReaderRounds = 60;

uint64_t WriterId(int w, int i) { return (uint64_t{1} << 62) + 1000000ull * (w + 1) - i; }

std::vector<float> Vector(uint32_t seed) {  // a distinct direction per seed
  std::vector<float> v(kChangeDims);
  uint32_t s = seed * 2654435761u + 1;
  for (float& x : v) x = float((s = s * 1664525u + 1013904223u) >> 8) / float(1 << 24) - 0.5f;
  return v;
}

// One reader's round over every read call; false when a call failed or saw a half-made change.
bool ReadRound(const swe_index* index, const swe_model* model, int round) {
  const int b = round % kBase;
  const std::string id = "base-" + std::to_string(b);
  uint64_t entry = 0;
  if (swe_index_find_doc(index, id.data(), id.size(), &entry) != SWE_OK) return false;
  swe_doc doc{};
  if (swe_index_get_doc(index, entry, &doc) != SWE_OK) return false;
  // A copy for this thread: whole, whatever the writers do meanwhile.
  if (std::string(doc.id.data, doc.id.size) != id || std::string(doc.text.data, doc.text.size) != "text of " + id ||
      std::string(doc.metadata.data, doc.metadata.size) != "{\"n\":" + std::to_string(b) + "}") {
    return false;
  }
  // The base document's own vector finds it (exactly, and approximately with every entry a candidate).
  const std::vector<float> query = Vector(b);
  uint64_t ids[4];
  float scores[4];
  size_t n = 0;
  if (swe_index_search(index, query.data(), kChangeDims, 4, nullptr, ids, scores, &n) != SWE_OK || n != 4) return false;
  if (std::find(ids, ids + 4, entry) == ids + 4) return false;
  swe_search_params params = swe_search_default_params();
  params.candidates = 100000;
  size_t counts[1];
  if (swe_index_search_batch(index, query.data(), 1, kChangeDims, 4, -1.0f, &params, ids, scores, counts) != SWE_OK ||
      counts[0] != 4 || std::find(ids, ids + 4, entry) == ids + 4) {
    return false;
  }
  if (swe_index_contains(index, entry) != 1) return false;
  const size_t size = swe_index_get_size(index);
  if (size < kBase || swe_index_get_doc_count(index) < kBase) return false;
  // The ids, asked for twice: a change in between shows as a buffer grown too small, then asked again.
  std::vector<uint64_t> all(size);
  swe_status s;
  while ((s = swe_index_get_ids(index, all.data(), all.size(), &n)) == SWE_ERR_INVALID_ARGUMENT && n > all.size()) {
    all.resize(n);
  }
  if (s != SWE_OK || n < kBase) return false;
  if (swe_index_check_model(index, model) != SWE_OK) return false;
  // A saved copy holds a whole state: every base document and as many ids as entries.
  uint8_t* bytes = nullptr;
  size_t size_bytes = 0;
  if (swe_index_save_to_bytes(index, &bytes, &size_bytes) != SWE_OK) return false;
  swe_index* copy = nullptr;
  s = swe_index_load_from_bytes(bytes, size_bytes, nullptr, &copy);
  swe_free_bytes(bytes);
  if (s != SWE_OK) return false;
  bool whole = swe_index_find_doc(copy, id.data(), id.size(), &entry) == SWE_OK && swe_index_get_size(copy) >= kBase;
  swe_index_free(copy);
  return whole;
}

TEST_P(CApiThreadsChange, ReadersAndWritersOnOneIndex) {
  const std::vector<uint8_t> bytes = swe::testing::ModelBytes(swe::fuzz::SeedContents(swe::SubwordKind::kNone),
                                                              swe::DType::kF32);
  swe_model* m = nullptr;
  ASSERT_EQ(swe_model_load_from_bytes(bytes.data(), bytes.size(), nullptr, &m), SWE_OK);
  std::unique_ptr<swe_model, void (*)(swe_model*)> model(m, swe_model_free);
  swe_index* x = nullptr;
  ASSERT_EQ(swe_index_create(kChangeDims, GetParam(), &x), SWE_OK);
  std::unique_ptr<swe_index, void (*)(swe_index*)> index(x, swe_index_free);
  for (int b = 0; b < kBase; ++b) {
    const std::string id = "base-" + std::to_string(b), text = "text of " + id, meta = "{\"n\":" + std::to_string(b) + "}";
    const swe_doc doc{{id.data(), id.size()}, {text.data(), text.size()}, {meta.data(), meta.size()}};
    ASSERT_EQ(swe_index_add_docs(index.get(), &doc, Vector(b).data(), 1), SWE_OK) << swe_last_error();
  }
  // Writer w owns integer ids counting down from 2^62 + 1,000,000 * (w + 1) (a new document's entry,
  // one past the largest id, then never meets one) and documents "w<w>-<i>": it adds, replaces and
  // removes them, and records the model (set_model, a change too).
  std::vector<int> failures(kWriters + kReaders, 0);
  std::atomic<int> waiting{kWriters + kReaders};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      waiting.fetch_sub(1);
      while (waiting.load() > 0) {}
      for (int i = 0; i < kWriterRounds; ++i) {
        const uint64_t id = WriterId(w, i);
        const std::vector<float> v = Vector(1000 + w * kWriterRounds + i);
        failures[w] += swe_index_add(index.get(), &id, v.data(), 1) != SWE_OK;
        const std::string doc_id = "w" + std::to_string(w) + "-" + std::to_string(i % 7), text = "t" + std::to_string(i);
        const swe_doc doc{{doc_id.data(), doc_id.size()}, {text.data(), text.size()}, {nullptr, 0}};
        failures[w] += swe_index_add_docs(index.get(), &doc, v.data(), 1) != SWE_OK;  // replaces after 7 rounds
        if (i % 3 == 2) failures[w] += swe_index_remove(index.get(), WriterId(w, i - 1)) != SWE_OK;
        if (i % 10 == 0) failures[w] += swe_index_set_model(index.get(), model.get()) != SWE_OK;
      }
    });
  }
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] {
      waiting.fetch_sub(1);
      while (waiting.load() > 0) {}
      for (int round = 0; round < kReaderRounds; ++round) failures[kWriters + r] += !ReadRound(index.get(), model.get(), round + r);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t t = 0; t < failures.size(); ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  // Every change landed: per writer, the integer ids not removed and its 7 documents.
  size_t expected = kBase;
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kWriterRounds; ++i) {
      const uint64_t id = WriterId(w, i);
      const bool removed = (i + 1) % 3 == 2 && i + 1 < kWriterRounds;  // removed by round i + 1
      EXPECT_EQ(swe_index_contains(index.get(), id), removed ? 0 : 1) << id;
      expected += !removed;
    }
    expected += 7;
  }
  EXPECT_EQ(swe_index_get_size(index.get()), expected);
  EXPECT_EQ(swe_index_get_doc_count(index.get()), size_t{kBase} + 7 * kWriters);
}

// A search never waits for a change (swe.h): while one long change runs (one add of 150,000 vectors),
// searches of the version before it go on, each taking what a search takes, not what the change takes
// (behind a readers/writer lock each waited for the whole add). Saves the same: a search during a
// compaction does not wait for it.
TEST(CApiThreadsVersions, SearchesNeverWaitForAChangeOrASave) {
  using Clock = std::chrono::steady_clock;
  swe_index* x = nullptr;
  ASSERT_EQ(swe_index_create(kChangeDims, SWE_DTYPE_F32, &x), SWE_OK);
  std::unique_ptr<swe_index, void (*)(swe_index*)> index(x, swe_index_free);
  const size_t base = 2000, batch = 150000;
  std::vector<uint64_t> ids(batch);
  std::vector<float> vectors(batch * kChangeDims);
  for (size_t i = 0; i < batch; ++i) {
    ids[i] = i;
    std::vector<float> v = Vector(static_cast<uint32_t>(i));
    std::copy(v.begin(), v.end(), vectors.begin() + i * kChangeDims);
  }
  ASSERT_EQ(swe_index_add(index.get(), ids.data(), vectors.data(), base), SWE_OK);
  for (size_t i = 0; i < batch; ++i) ids[i] += base;
  // One search alone, for scale.
  const std::vector<float> query = Vector(7);
  uint64_t hit_ids[5];
  float hit_scores[5];
  size_t n = 0;
  auto search = [&] { return swe_index_search(index.get(), query.data(), kChangeDims, 5, nullptr, hit_ids, hit_scores, &n); };
  const auto alone_start = Clock::now();
  for (int i = 0; i < 20; ++i) ASSERT_EQ(search(), SWE_OK);
  const double alone = std::chrono::duration<double>(Clock::now() - alone_start).count() / 20;
  for (int kind = 0; kind < 2; ++kind) {  // 0: a long add; 1: a long save (a compaction to a file)
    std::atomic<bool> started{false}, done{false};
    double change_seconds = 0;
    std::thread writer([&] {
      started = true;
      const auto start = Clock::now();
      if (kind == 0) {
        EXPECT_EQ(swe_index_add(index.get(), ids.data(), vectors.data(), batch), SWE_OK);
      } else {
        const std::string path = "/tmp/swe_threads_versions_" + std::to_string(getpid()) + ".swi";
        for (int i = 0; i < 5; ++i) EXPECT_EQ(swe_index_compact_to_file(index.get(), path.c_str()), SWE_OK);
        std::remove(path.c_str());
      }
      change_seconds = std::chrono::duration<double>(Clock::now() - start).count();
      done = true;
    });
    while (!started) {}
    double slowest = 0;
    int during = 0;
    while (!done) {
      const auto start = Clock::now();
      ASSERT_EQ(search(), SWE_OK);
      ASSERT_EQ(n, 5u);
      slowest = std::max(slowest, std::chrono::duration<double>(Clock::now() - start).count());
      during += !done;
    }
    writer.join();
    std::printf("%s: %.1f ms; searches meanwhile: %d, the slowest %.2f ms (%.2f ms alone)\n",
                kind == 0 ? "add of 150,000" : "five compactions", change_seconds * 1e3, during, slowest * 1e3, alone * 1e3);
    // Searches were answered while the change ran (behind a lock they would all wait for its end). How
    // long each took is bench/index_store_bench.py's to measure, not a test's: a loaded machine stalls any thread.
    EXPECT_GT(during, 1) << (kind == 0 ? "searches waited for the add" : "searches waited for the save");
  }
  EXPECT_EQ(swe_index_get_size(index.get()), base + batch);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CApiThreadsChange, ::testing::Values(int32_t{SWE_DTYPE_F32}, int32_t{SWE_DTYPE_INT8}),
                         [](const ::testing::TestParamInfo<int32_t>& info) {
                           return std::string(info.param == SWE_DTYPE_F32 ? "f32" : "int8");
                         });

std::string ParamName(const ::testing::TestParamInfo<CApiThreads::ParamType>& info) {
  const char* subword[] = {"words", "wordpiece", "unigram"};
  return std::string(subword[static_cast<int>(std::get<0>(info.param))]) + "_" +
         swe::dtype_name(std::get<1>(info.param)) + "_index_" + (std::get<2>(info.param) == SWE_DTYPE_F32 ? "f32" : "int8");
}

INSTANTIATE_TEST_SUITE_P(
    Models, CApiThreads,
    ::testing::Values(std::make_tuple(swe::SubwordKind::kNone, swe::DType::kF32, int32_t{SWE_DTYPE_F32}),
                      std::make_tuple(swe::SubwordKind::kWordPiece, swe::DType::kF16, int32_t{SWE_DTYPE_INT8}),
                      std::make_tuple(swe::SubwordKind::kUnigram, swe::DType::kInt8, int32_t{SWE_DTYPE_F32})),
    ParamName);

}  // namespace

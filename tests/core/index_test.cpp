// The flat index: top-k against brute force, ordering of ties, add/replace/remove, files and every
// load rejection path.
#include "swe/index.h"

#include <capnp/any.h>
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "container.h"
#include "core/test_models.h"
#include "simd/kernels.h"
#include "swe/encoder.h"

namespace swe {
namespace {

using testing::RandomVectors;

// swe_index_contains returns Contains' answer directly (1 or 0, no status guard): it must not throw.
static_assert(noexcept(std::declval<const Index&>().Contains(0)), "Index::Contains must be noexcept");

std::unique_ptr<Index> MakeIndex(uint32_t dims, DType dtype) {
  std::unique_ptr<Index> index;
  Status s = Index::Create(dims, dtype, &index);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return index;
}

double ExactCosine(const float* a, const float* b, uint32_t n) {
  double ab = 0, aa = 0, bb = 0;
  for (uint32_t i = 0; i < n; ++i) {
    ab += double{a[i]} * b[i];
    aa += double{a[i]} * a[i];
    bb += double{b[i]} * b[i];
  }
  return aa == 0 || bb == 0 ? 0 : ab / std::sqrt(aa * bb);
}

bool Ordered(const std::vector<SearchHit>& hits) {
  for (size_t i = 1; i < hits.size(); ++i) {
    const SearchHit& a = hits[i - 1];
    const SearchHit& b = hits[i];
    if (!(a.score > b.score || (a.score == b.score && a.id < b.id))) return false;
  }
  return true;
}

std::vector<SearchHit> Search(const Index& index, const float* query, size_t k) {
  std::vector<SearchHit> hits;
  Status s = index.Search(query, k, &hits);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return hits;
}

std::vector<SearchHit> SearchBinary(const Index& index, const float* query, size_t k, size_t candidates) {
  std::vector<SearchHit> hits;
  EXPECT_TRUE(index.SearchBinary(query, k, candidates, &hits).ok());
  return hits;
}

class IndexDTypeTest : public ::testing::TestWithParam<DType> {};

TEST_P(IndexDTypeTest, TopKMatchesBruteForce) {
  const uint32_t dims = 37;
  const size_t n = 1500;  // more than one scan block
  const std::vector<float> data = RandomVectors(n, dims, 1);
  auto index = MakeIndex(dims, GetParam());
  ASSERT_TRUE(index);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = 1000 + 7 * i;
  ASSERT_TRUE(index->AddBatch(ids.data(), data.data(), n).ok());
  ASSERT_EQ(index->size(), n);
  const std::vector<float> queries = RandomVectors(20, dims, 2);
  const double tolerance = GetParam() == DType::kF32 ? 1e-5 : 0.03;  // int8: quantisation error
  for (size_t q = 0; q < 20; ++q) {
    const float* query = queries.data() + q * dims;
    // The full ranking (k = size) and the top 10 from the heap must agree.
    const std::vector<SearchHit> all = Search(*index, query, n + 5);
    ASSERT_EQ(all.size(), n);
    EXPECT_TRUE(Ordered(all));
    const std::vector<SearchHit> top = Search(*index, query, 10);
    ASSERT_EQ(top.size(), 10u);
    for (size_t i = 0; i < 10; ++i) {
      EXPECT_EQ(top[i].id, all[i].id);
      EXPECT_EQ(top[i].score, all[i].score);
    }
    // Every score is the cosine, within the dtype's error; the exact best is near the top.
    std::vector<double> exact(n);
    for (size_t i = 0; i < n; ++i) exact[i] = ExactCosine(query, data.data() + i * dims, dims);
    for (const SearchHit& hit : all) {
      const size_t i = (hit.id - 1000) / 7;
      EXPECT_NEAR(hit.score, exact[i], tolerance) << hit.id;
    }
    const double best = *std::max_element(exact.begin(), exact.end());
    EXPECT_NEAR(top[0].score, best, 2 * tolerance);
  }
}

TEST(Index, F32ScoresAreTheCanonicalDot) {
  const uint32_t dims = 24;
  const std::vector<float> data = RandomVectors(50, dims, 3);
  auto index = MakeIndex(dims, DType::kF32);
  for (size_t i = 0; i < 50; ++i) ASSERT_TRUE(index->Add(i, data.data() + i * dims).ok());
  std::vector<float> query = RandomVectors(1, dims, 4);
  std::vector<SearchHit> want;
  std::vector<float> unit_q = query;
  NormalizeL2(unit_q.data(), dims);
  for (size_t i = 0; i < 50; ++i) {
    std::vector<float> unit(data.begin() + i * dims, data.begin() + (i + 1) * dims);
    NormalizeL2(unit.data(), dims);
    want.push_back({i, simd::Active().dot_f32(unit_q.data(), unit.data(), dims)});
  }
  std::sort(want.begin(), want.end(), [](const SearchHit& a, const SearchHit& b) {
    return a.score > b.score || (a.score == b.score && a.id < b.id);
  });
  want.resize(17);
  const std::vector<SearchHit> got = Search(*index, query.data(), 17);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].id, want[i].id);
    EXPECT_EQ(got[i].score, want[i].score);
  }
}

TEST_P(IndexDTypeTest, TiesAreOrderedById) {
  const uint32_t dims = 9;
  std::vector<float> v = RandomVectors(2, dims, 5);
  auto index = MakeIndex(dims, GetParam());
  std::vector<float> twice(v.begin(), v.begin() + dims);
  for (float& x : twice) x *= 2;  // same direction: normalised to the same bits
  for (uint64_t id : {50, 7, 900, 3, 8}) ASSERT_TRUE(index->Add(id, id % 2 ? v.data() : twice.data()).ok());
  ASSERT_TRUE(index->Add(60, v.data() + dims).ok());
  const std::vector<SearchHit> hits = Search(*index, v.data(), 4);
  ASSERT_EQ(hits.size(), 4u);
  const uint64_t want[] = {3, 7, 8, 50};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(hits[i].id, want[i]);
    EXPECT_EQ(hits[i].score, hits[0].score);
  }
  // A zero query scores 0 against everything: the order is by id alone.
  const std::vector<float> zero(dims, 0.0f);
  const std::vector<SearchHit> by_id = Search(*index, zero.data(), 10);
  ASSERT_EQ(by_id.size(), 6u);
  for (size_t i = 0; i < by_id.size(); ++i) EXPECT_EQ(by_id[i].score, 0.0f);
  EXPECT_EQ(by_id.front().id, 3u);
  EXPECT_EQ(by_id.back().id, 900u);
}

TEST_P(IndexDTypeTest, AddReplaceRemove) {
  const uint32_t dims = 16;
  const std::vector<float> v = RandomVectors(6, dims, 6);
  auto index = MakeIndex(dims, GetParam());
  for (uint64_t id = 0; id < 5; ++id) ASSERT_TRUE(index->Add(id * 10, v.data() + id * dims).ok());
  EXPECT_EQ(index->size(), 5u);
  EXPECT_TRUE(index->Contains(20));
  EXPECT_FALSE(index->Contains(21));
  // Replace: same size, the id now answers the new vector.
  ASSERT_TRUE(index->Add(20, v.data() + 5 * dims).ok());
  EXPECT_EQ(index->size(), 5u);
  std::vector<SearchHit> hits = Search(*index, v.data() + 5 * dims, 1);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].id, 20u);
  EXPECT_NEAR(hits[0].score, 1.0f, 0.02);
  // Remove from the middle: the last entry moves into the hole and stays findable.
  ASSERT_TRUE(index->Remove(10).ok());
  EXPECT_EQ(index->size(), 4u);
  EXPECT_FALSE(index->Contains(10));
  hits = Search(*index, v.data() + 4 * dims, 1);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].id, 40u);
  EXPECT_NEAR(hits[0].score, 1.0f, 0.02);
  for (const SearchHit& h : Search(*index, v.data(), 10)) EXPECT_NE(h.id, 10u);
  EXPECT_EQ(index->Remove(10).code(), StatusCode::kNotFound);
  // Remove the last one and everything else.
  for (uint64_t id : {40, 0, 20, 30}) ASSERT_TRUE(index->Remove(id).ok()) << id;
  EXPECT_EQ(index->size(), 0u);
  EXPECT_TRUE(Search(*index, v.data(), 3).empty());
  ASSERT_TRUE(index->Add(1, v.data()).ok());
  EXPECT_EQ(Search(*index, v.data(), 3).size(), 1u);
}

// NextId is one more than the largest id present, through adds, removals and a save/load.
TEST_P(IndexDTypeTest, NextIdFollowsTheLargestId) {
  const uint32_t dims = 8;
  const std::vector<float> v = RandomVectors(1, dims, 7);
  auto index = MakeIndex(dims, GetParam());
  EXPECT_EQ(index->NextId(), 0u);
  for (uint64_t id : {4, 9, 2}) ASSERT_TRUE(index->Add(id, v.data()).ok());
  EXPECT_EQ(index->NextId(), 10u);
  ASSERT_TRUE(index->Remove(2).ok());
  EXPECT_EQ(index->NextId(), 10u);
  ASSERT_TRUE(index->Remove(9).ok());  // the largest: rescanned
  EXPECT_EQ(index->NextId(), 5u);
  ASSERT_TRUE(index->Add(7, v.data()).ok());
  EXPECT_EQ(index->NextId(), 8u);
  ASSERT_TRUE(index->Add(std::numeric_limits<uint64_t>::max(), v.data()).ok());
  EXPECT_EQ(index->NextId(), 8u);
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(index->Save(&bytes).ok());
  std::unique_ptr<Index> loaded;
  ASSERT_TRUE(Index::Load(bytes.data(), bytes.size(), &loaded).ok());
  EXPECT_EQ(loaded->NextId(), 8u);
  for (uint64_t id : {7, 4}) ASSERT_TRUE(loaded->Remove(id).ok());
  EXPECT_EQ(loaded->NextId(), 0u);
}

TEST_P(IndexDTypeTest, KZeroAndLargeK) {
  const uint32_t dims = 8;
  const std::vector<float> v = RandomVectors(3, dims, 7);
  auto index = MakeIndex(dims, GetParam());
  EXPECT_TRUE(Search(*index, v.data(), 5).empty());  // empty index
  for (uint64_t id = 0; id < 3; ++id) ASSERT_TRUE(index->Add(id, v.data() + id * dims).ok());
  EXPECT_TRUE(Search(*index, v.data(), 0).empty());
  EXPECT_EQ(Search(*index, v.data(), 1000000).size(), 3u);
  EXPECT_EQ(Search(*index, v.data(), SIZE_MAX).size(), 3u);
}

TEST_P(IndexDTypeTest, RejectsNonFiniteInput) {
  const uint32_t dims = 8;
  std::vector<float> v = RandomVectors(4, dims, 8);
  auto index = MakeIndex(dims, GetParam());
  ASSERT_TRUE(index->Add(1, v.data()).ok());
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
    std::vector<float> w = v;
    w[dims + 3] = bad;
    EXPECT_EQ(index->Add(2, w.data() + dims).code(), StatusCode::kInvalidArgument);
    const uint64_t ids[] = {3, 4, 5};
    EXPECT_EQ(index->AddBatch(ids, w.data(), 3).code(), StatusCode::kInvalidArgument);
    std::vector<SearchHit> hits = {{1, 1.0f}};
    EXPECT_EQ(index->Search(w.data() + dims, 3, &hits).code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(hits.empty());
  }
  EXPECT_EQ(index->size(), 1u);  // nothing was added, not even the batch's valid first vector
  EXPECT_EQ(index->Add(9, nullptr).code(), StatusCode::kInvalidArgument);
  // A zero vector is a valid entry (an empty sentence): it scores 0.
  const std::vector<float> zero(dims, 0.0f);
  ASSERT_TRUE(index->Add(2, zero.data()).ok());
  std::vector<SearchHit> hits = Search(*index, v.data(), 2);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[1].id, 2u);
  EXPECT_EQ(hits[1].score, 0.0f);
}

TEST_P(IndexDTypeTest, SaveLoadRoundTrip) {
  const uint32_t dims = 33;
  const std::vector<float> v = RandomVectors(200, dims, 9);
  auto index = MakeIndex(dims, GetParam());
  for (uint64_t i = 0; i < 200; ++i)
    ASSERT_TRUE(index->Add(i * 0x9E3779B97F4A7C15ull, v.data() + i * dims).ok());
  ASSERT_TRUE(index->Remove(5 * 0x9E3779B97F4A7C15ull).ok());
  index->set_model("test-model", 0xABCDEF01u);
  for (int level : {0, 3}) {
    std::vector<uint8_t> bytes = {1, 2, 3};  // Save appends
    ASSERT_TRUE(index->Save(&bytes, level).ok());
    std::unique_ptr<Index> loaded;
    Status s = Index::Load(bytes.data() + 3, bytes.size() - 3, &loaded);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(loaded->dims(), dims);
    EXPECT_EQ(loaded->dtype(), GetParam());
    EXPECT_EQ(loaded->size(), index->size());
    EXPECT_EQ(loaded->model_name(), "test-model");
    EXPECT_EQ(loaded->model_checksum(), 0xABCDEF01u);
    for (size_t q = 0; q < 5; ++q) {
      const std::vector<SearchHit> a = Search(*index, v.data() + q * dims, 300);
      const std::vector<SearchHit> b = Search(*loaded, v.data() + q * dims, 300);
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].id, b[i].id);
        EXPECT_EQ(a[i].score, b[i].score);
      }
    }
    // The loaded index is a normal, mutable index.
    EXPECT_TRUE(loaded->Contains(7 * 0x9E3779B97F4A7C15ull));
    ASSERT_TRUE(loaded->Remove(7 * 0x9E3779B97F4A7C15ull).ok());
    ASSERT_TRUE(loaded->Add(42, v.data()).ok());
  }
  // An empty index round-trips too.
  auto empty = MakeIndex(dims, GetParam());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(empty->Save(&bytes).ok());
  std::unique_ptr<Index> loaded;
  ASSERT_TRUE(Index::Load(bytes.data(), bytes.size(), &loaded).ok());
  EXPECT_EQ(loaded->size(), 0u);
  EXPECT_EQ(loaded->dims(), dims);
}

INSTANTIATE_TEST_SUITE_P(Both, IndexDTypeTest, ::testing::Values(DType::kF32, DType::kInt8),
                         [](const ::testing::TestParamInfo<DType>& info) { return dtype_name(info.param); });

TEST(Index, CreateRejectsBadArguments) {
  std::unique_ptr<Index> index;
  EXPECT_EQ(Index::Create(0, DType::kF32, &index).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Index::Create(1u << 20, DType::kF32, &index).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Index::Create(8, DType::kF16, &index).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Index::Create(8, static_cast<DType>(9), &index).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index, nullptr);
}

TEST(Index, Int8ScoresAreCloseToF32) {
  const uint32_t dims = 256;
  const std::vector<float> v = RandomVectors(300, dims, 10);
  auto f32 = MakeIndex(dims, DType::kF32);
  auto i8 = MakeIndex(dims, DType::kInt8);
  for (uint64_t i = 0; i < 300; ++i) {
    ASSERT_TRUE(f32->Add(i, v.data() + i * dims).ok());
    ASSERT_TRUE(i8->Add(i, v.data() + i * dims).ok());
  }
  const std::vector<float> q = RandomVectors(1, dims, 11);
  const std::vector<SearchHit> a = Search(*f32, q.data(), 300);
  const std::vector<SearchHit> b = Search(*i8, q.data(), 300);
  std::vector<float> score_a(300), score_b(300);
  for (const SearchHit& h : a) score_a[h.id] = h.score;
  for (const SearchHit& h : b) score_b[h.id] = h.score;
  for (size_t i = 0; i < 300; ++i) EXPECT_NEAR(score_a[i], score_b[i], 0.01) << i;
  // Recall of the top 10.
  std::set<uint64_t> top_a, top_b;
  for (size_t i = 0; i < 10; ++i) {
    top_a.insert(a[i].id);
    top_b.insert(b[i].id);
  }
  size_t common = 0;
  for (uint64_t id : top_a) common += top_b.count(id);
  EXPECT_GE(common, 8u);
}

// ---- load rejections ----

// An index message assembled field by field (layout per `capnp compile -ocapnp schema/swe.capnp`:
// Index = 1 data word {dims u32 @0, modelChecksum u32 @4}, pointers {ids, vectors, modelName};
// Table = 2 data words {dtype u16 @0, rows u32 @4, dims u32 @8}, pointers {data, scales}), so that
// every inconsistency can be written.
struct RawIndex {
  uint32_t dims = 4;
  std::vector<uint8_t> ids;
  bool has_vectors = true;
  uint16_t dtype = 0;  // schema DType: f32 0, f16 1, int8 2
  uint32_t rows = 0, table_dims = 4;
  std::vector<uint8_t> data, scales;

  static RawIndex Valid(uint16_t dtype, uint32_t rows) {
    RawIndex r;
    r.dtype = dtype;
    r.rows = rows;
    for (uint32_t i = 0; i < rows; ++i) r.AddId(100 + i);
    const float unit[4] = {0.5f, -0.5f, 0.5f, 0.5f};
    for (uint32_t i = 0; i < rows; ++i) {
      if (dtype == 0) {
        r.data.insert(r.data.end(), reinterpret_cast<const uint8_t*>(unit),
                      reinterpret_cast<const uint8_t*>(unit + 4));
      } else {
        for (int d = 0; d < 4; ++d) r.data.push_back(d == 1 ? 0x81 : 127);
        const float scale = 0.5f / 127;
        r.scales.insert(r.scales.end(), reinterpret_cast<const uint8_t*>(&scale),
                        reinterpret_cast<const uint8_t*>(&scale + 1));
      }
    }
    return r;
  }
  void AddId(uint64_t id) {
    for (int b = 0; b < 8; ++b) ids.push_back(static_cast<uint8_t>(id >> (8 * b)));
  }
  std::vector<uint64_t> Message() const {
    capnp::MallocMessageBuilder message;
    capnp::AnyStruct::Builder root = message.getRoot<capnp::AnyPointer>().initAsAnyStruct(1, 3);
    std::memcpy(root.getDataSection().begin(), &dims, 4);
    capnp::List<capnp::AnyPointer>::Builder ptrs = root.getPointerSection();
    ptrs[0].setAs<capnp::Data>(capnp::Data::Reader(ids.data(), ids.size()));
    if (has_vectors) {
      capnp::AnyStruct::Builder table = ptrs[1].initAsAnyStruct(2, 2);
      std::memcpy(table.getDataSection().begin(), &dtype, 2);
      std::memcpy(table.getDataSection().begin() + 4, &rows, 4);
      std::memcpy(table.getDataSection().begin() + 8, &table_dims, 4);
      table.getPointerSection()[0].setAs<capnp::Data>(capnp::Data::Reader(data.data(), data.size()));
      if (!scales.empty()) {
        table.getPointerSection()[1].setAs<capnp::Data>(capnp::Data::Reader(scales.data(), scales.size()));
      }
    }
    ptrs[2].setAs<capnp::Text>("raw");
    kj::Array<capnp::word> words = capnp::messageToFlatArray(message);
    std::vector<uint64_t> out(words.size());
    std::memcpy(out.data(), words.begin(), words.size() * 8);
    return out;
  }
};

std::vector<uint8_t> Seal(const std::vector<uint64_t>& message,
                          container::Kind kind = container::Kind::kIndex) {
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(
      container::Seal(kind, reinterpret_cast<const uint8_t*>(message.data()), message.size() * 8, 0, &bytes)
          .ok());
  return bytes;
}

Status LoadBytes(const std::vector<uint8_t>& bytes, const ReadLimits& limits = ReadLimits()) {
  std::unique_ptr<Index> index;
  Status s = Index::Load(bytes.data(), bytes.size(), &index, limits);
  EXPECT_EQ(s.ok(), index != nullptr);
  if (s.ok()) {  // whatever loads must be searchable
    std::vector<float> q(index->dims(), 1.0f);
    std::vector<SearchHit> hits;
    EXPECT_TRUE(index->Search(q.data(), 3, &hits).ok());
  }
  return s;
}

TEST(IndexLoad, RawMessagesThatAreValidLoad) {
  for (uint16_t dtype : {0, 2}) {
    for (uint32_t rows : {0u, 1u, 3u}) {
      Status s = LoadBytes(Seal(RawIndex::Valid(dtype, rows).Message()));
      EXPECT_TRUE(s.ok()) << dtype << " " << rows << " " << s.ToString();
    }
  }
  std::unique_ptr<Index> index;
  const std::vector<uint8_t> bytes = Seal(RawIndex::Valid(2, 3).Message());
  ASSERT_TRUE(Index::Load(bytes.data(), bytes.size(), &index).ok());
  EXPECT_EQ(index->dtype(), DType::kInt8);
  EXPECT_TRUE(index->Contains(102));
  EXPECT_EQ(index->model_name(), "raw");
}

TEST(IndexLoad, RejectsTruncatedAndEmptyInput) {
  auto index = MakeIndex(8, DType::kF32);
  const std::vector<float> v = RandomVectors(10, 8, 12);
  for (uint64_t i = 0; i < 10; ++i) ASSERT_TRUE(index->Add(i, v.data() + i * 8).ok());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(index->Save(&bytes).ok());
  for (size_t cut = 0; cut < bytes.size(); cut += (cut < 64 ? 1 : 17)) {
    std::vector<uint8_t> part(bytes.begin(), bytes.begin() + cut);
    EXPECT_FALSE(LoadBytes(part).ok()) << cut;
  }
  std::unique_ptr<Index> out;
  EXPECT_FALSE(Index::Load(nullptr, 0, &out).ok());
  // A message cut short, re-sealed so that the container checks pass.
  std::vector<uint64_t> message = RawIndex::Valid(0, 3).Message();
  message.resize(message.size() - 2);
  EXPECT_EQ(LoadBytes(Seal(message)).code(), StatusCode::kCorrupt);
  // Garbage words.
  for (uint64_t& w : message) w = w * 0x9E3779B97F4A7C15ull + 1;
  EXPECT_EQ(LoadBytes(Seal(message)).code(), StatusCode::kCorrupt);
  // Trailing words after the message.
  message = RawIndex::Valid(0, 3).Message();
  message.push_back(0);
  EXPECT_EQ(LoadBytes(Seal(message)).code(), StatusCode::kCorrupt);
}

// A header that declares a huge payload is checked against the frame before anything is allocated:
// a 3 GiB claim in a small file once made the reader zero-fill 3 GiB first.
TEST(IndexLoad, HugeDeclaredPayloadAllocatesNothing) {
  std::unique_ptr<Index> index;
  ASSERT_TRUE(Index::Create(8, DType::kF32, &index).ok());
  std::vector<float> v(8, 0.0f);
  v[0] = 1.0f;
  ASSERT_TRUE(index->Add(1, v.data()).ok());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(index->Save(&bytes, 3).ok());
  const uint64_t declared = 3ull << 30;
  std::memcpy(bytes.data() + 16, &declared, 8);  // the header's payload size
  rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  EXPECT_EQ(LoadBytes(bytes).code(), StatusCode::kTooLarge);  // more than the frame can expand to
  getrusage(RUSAGE_SELF, &after);
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 256 * 1024) << "kB of peak memory grew";
}

// int8 scores are cosines: rounding both rows to int8 once gave a vector's score with itself 1.00095.
TEST(IndexSearch, Int8ScoresStayWithinOne) {
  const uint32_t dims = 256;
  const size_t n = 400;
  const std::vector<float> v = RandomVectors(n, dims, 17);
  auto index = MakeIndex(dims, DType::kInt8);
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(index->Add(i, v.data() + i * dims).ok());
  float highest = -2, lowest = 2;
  for (uint64_t q = 0; q < n; ++q) {
    std::vector<float> query(v.begin() + q * dims, v.begin() + (q + 1) * dims);
    highest = std::max({highest, Search(*index, query.data(), 1)[0].score,
                        SearchBinary(*index, query.data(), 1, 20)[0].score});
    for (float& x : query) x = -x;  // the vector itself scores lowest
    lowest = std::min(lowest, Search(*index, query.data(), n).back().score);
  }
  EXPECT_LE(highest, 1.0f);
  EXPECT_GE(lowest, -1.0f);
}

// A zstd frame of RLE blocks: `payload` bytes of `byte` in 4 bytes per 128 KB, with zstd's content size.
std::vector<uint8_t> RleFrame(uint64_t payload, uint8_t byte) {
  std::vector<uint8_t> frame = {0x28, 0xB5, 0x2F, 0xFD, 0xE0};  // magic; 8-byte content size, one segment
  for (int i = 0; i < 8; ++i) frame.push_back(uint8_t(payload >> (8 * i)));
  for (uint64_t pos = 0; pos < payload;) {
    const uint64_t size = std::min<uint64_t>(payload - pos, 128 * 1024);
    const uint32_t header = (pos + size == payload ? 1 : 0) | 1u << 1 | uint32_t(size) << 3;  // type 1: RLE
    for (int i = 0; i < 3; ++i) frame.push_back(uint8_t(header >> (8 * i)));
    frame.push_back(byte);
    pos += size;
  }
  return frame;
}

// A decompression bomb: a genuine zstd frame of 128 KB that decodes to 4 GiB - 8 (within the payload
// limit), with the right checksum, is refused from its header, before a byte is allocated or decoded
// (it once took 3.9 GB); a frame that expands less than the limit still reads (here: to a bad message).
TEST(IndexLoad, DecompressionBombIsRefusedBeforeDecoding) {
  auto file_of = [](const std::vector<uint8_t>& frame, uint64_t payload) {
    std::vector<uint8_t> file = {0x89, 'S', 'W', 'E', '\r', '\n', 0x1A, '\n', 1, 0, 0, 0, 2, 0, 0, 0};
    for (int i = 0; i < 8; ++i) file.push_back(uint8_t(payload >> (8 * i)));
    for (int i = 0; i < 8; ++i) file.push_back(uint8_t(uint64_t{frame.size()} >> (8 * i)));
    const uint32_t hash = container::FrameHash32(frame.data(), frame.size()), flags = container::kFlagFrameHash;
    for (int i = 0; i < 4; ++i) file.push_back(uint8_t(hash >> (8 * i)));
    for (int i = 0; i < 4; ++i) file.push_back(uint8_t(flags >> (8 * i)));
    file.insert(file.end(), frame.begin(), frame.end());
    return file;
  };
  const uint64_t huge = (4ull << 30) - 8;
  const std::vector<uint8_t> bomb = file_of(RleFrame(huge, 0), huge);
  ASSERT_LT(bomb.size(), 200u * 1024);
  rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  const Status s = LoadBytes(bomb);
  getrusage(RUSAGE_SELF, &after);
  EXPECT_EQ(s.code(), StatusCode::kTooLarge) << s.ToString();
  EXPECT_NE(s.message().find("64 times"), std::string::npos) << s.ToString();
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024) << "kB of peak memory grew";
  // 8 MiB of zeros expand far more than 64 times but stay under the floor: decoded, then refused as
  // a message (zero words are no index).
  const uint64_t small = 8u << 20;
  EXPECT_EQ(LoadBytes(file_of(RleFrame(small, 0), small)).code(), StatusCode::kCorrupt);
}

// What compresses further than a reader allows is written raw: every index the writer writes loads.
TEST(IndexSave, PayloadsThatCompressTooWellAreStoredRaw) {
  std::unique_ptr<Index> index;
  ASSERT_TRUE(Index::Create(256, DType::kF32, &index).ok());
  std::vector<float> zero(256, 0.0f);
  for (uint64_t id = 0; id < 20000; ++id) ASSERT_TRUE(index->Add(id, zero.data()).ok());  // 20 MB of zero rows
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(index->Save(&bytes, 3).ok());
  uint32_t flags;
  std::memcpy(&flags, bytes.data() + 36, 4);
  EXPECT_NE(flags & container::kFlagRawPayload, 0u);
  std::unique_ptr<Index> loaded;
  ASSERT_TRUE(Index::Load(bytes.data(), bytes.size(), &loaded).ok());
  EXPECT_EQ(loaded->size(), 20000u);
}

TEST(IndexLoad, RejectsAModelFile) {
  const std::vector<uint8_t> model = testing::ModelBytes(testing::RandomContents({"a", "b"}, 4));
  Status s = LoadBytes(model);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("model"), std::string::npos) << s.ToString();
  // And an index message in a model container.
  EXPECT_FALSE(LoadBytes(Seal(RawIndex::Valid(0, 2).Message(), container::Kind::kModel)).ok());
}

TEST(IndexLoad, RejectsBadSizes) {
  struct Case {
    const char* what;
    void (*mutate)(RawIndex*);
    StatusCode code;
  };
  const Case cases[] = {
      {"dims 0", [](RawIndex* r) { r->dims = 0; }, StatusCode::kCorrupt},
      {"huge dims", [](RawIndex* r) { r->dims = r->table_dims = 1u << 30; }, StatusCode::kTooLarge},
      {"table dims differ", [](RawIndex* r) { r->table_dims = 5; }, StatusCode::kCorrupt},
      {"no table", [](RawIndex* r) { r->has_vectors = false; }, StatusCode::kCorrupt},
      {"ids short", [](RawIndex* r) { r->ids.resize(r->ids.size() - 1); }, StatusCode::kCorrupt},
      {"ids long", [](RawIndex* r) { r->AddId(7); }, StatusCode::kCorrupt},
      {"rows more than data", [](RawIndex* r) { r->rows += 1; }, StatusCode::kCorrupt},
      {"data short", [](RawIndex* r) { r->data.resize(r->data.size() - 1); }, StatusCode::kCorrupt},
      {"data long", [](RawIndex* r) { r->data.resize(r->data.size() + 4); }, StatusCode::kCorrupt},
      {"f32 with scales", [](RawIndex* r) { r->scales.resize(4 * r->rows); }, StatusCode::kCorrupt},
      {"huge rows", [](RawIndex* r) { r->rows = 30'000'000; }, StatusCode::kTooLarge},
      {"f16 table",
       [](RawIndex* r) {
         r->dtype = 1;
         r->data.resize(r->data.size() / 2);
       },
       StatusCode::kUnsupported},
      {"unknown dtype", [](RawIndex* r) { r->dtype = 7; }, StatusCode::kCorrupt},
      {"duplicate ids",
       [](RawIndex* r) { std::copy(r->ids.begin(), r->ids.begin() + 8, r->ids.begin() + 16); },
       StatusCode::kCorrupt},
      {"NaN value",
       [](RawIndex* r) {
         const float nan = NAN;
         std::memcpy(r->data.data() + 20, &nan, 4);
       },
       StatusCode::kCorrupt},
      {"inf value",
       [](RawIndex* r) {
         const float inf = INFINITY;
         std::memcpy(r->data.data(), &inf, 4);
       },
       StatusCode::kCorrupt},
      {"row not unit length (finite but huge: scores would overflow)",
       [](RawIndex* r) {
         const float huge = 1e30f;
         std::memcpy(r->data.data(), &huge, 4);
       },
       StatusCode::kCorrupt},
  };
  for (const Case& c : cases) {
    RawIndex r = RawIndex::Valid(0, 3);
    c.mutate(&r);
    Status s = LoadBytes(Seal(r.Message()));
    EXPECT_EQ(s.code(), c.code) << c.what << ": " << s.ToString();
  }
  const Case int8_cases[] = {
      {"scales missing", [](RawIndex* r) { r->scales.clear(); }, StatusCode::kCorrupt},
      {"scales short", [](RawIndex* r) { r->scales.resize(r->scales.size() - 4); }, StatusCode::kCorrupt},
      {"data short", [](RawIndex* r) { r->data.pop_back(); }, StatusCode::kCorrupt},
      {"NaN scale",
       [](RawIndex* r) {
         const float nan = NAN;
         std::memcpy(r->scales.data() + 4, &nan, 4);
       },
       StatusCode::kCorrupt},
      {"negative scale",
       [](RawIndex* r) {
         const float neg = -1.0f;
         std::memcpy(r->scales.data(), &neg, 4);
       },
       StatusCode::kCorrupt},
      {"an int8 value of -128 (outside the scan kernels' range)",
       [](RawIndex* r) { r->data.back() = static_cast<uint8_t>(0x80); },
       StatusCode::kCorrupt},
      {"scale too large for a unit vector",
       [](RawIndex* r) {
         const float big = 1e30f;
         std::memcpy(r->scales.data(), &big, 4);
       },
       StatusCode::kCorrupt},
      {"duplicate ids",
       [](RawIndex* r) { std::copy(r->ids.begin() + 8, r->ids.begin() + 16, r->ids.begin()); },
       StatusCode::kCorrupt},
  };
  for (const Case& c : int8_cases) {
    RawIndex r = RawIndex::Valid(2, 3);
    c.mutate(&r);
    Status s = LoadBytes(Seal(r.Message()));
    EXPECT_EQ(s.code(), c.code) << "int8 " << c.what << ": " << s.ToString();
  }
}

TEST(IndexLoad, HonoursReadLimits) {
  const std::vector<uint8_t> bytes = Seal(RawIndex::Valid(0, 3).Message());
  ReadLimits rows;
  rows.max_rows = 2;
  EXPECT_EQ(LoadBytes(bytes, rows).code(), StatusCode::kTooLarge);
  ReadLimits dims;
  dims.max_dims = 3;
  EXPECT_EQ(LoadBytes(bytes, dims).code(), StatusCode::kTooLarge);
}

TEST(IndexLoad, EveryFlippedByteGivesAStatus) {
  const std::vector<uint64_t> message = RawIndex::Valid(2, 3).Message();
  for (size_t i = 0; i < message.size() * 8; ++i) {
    std::vector<uint64_t> copy = message;
    reinterpret_cast<uint8_t*>(copy.data())[i] ^= 0xFF;
    static_cast<void>(LoadBytes(Seal(copy)));  // ok or not, never a crash; a loaded one is searched
  }
}

}  // namespace
}  // namespace swe

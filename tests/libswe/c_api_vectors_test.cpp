// The swe_vectors_* functions (swe.h, "vectors"): ranking is an f32 index's ranking bit for bit;
// near-duplicate groups and k-means give what the swe program's own C++ gave before they moved into
// the library (the golden values below: cli/vector_helpers.cpp, run on these rows before the move,
// whose seeds also gave the npm package's clusters: one mulberry32 stream, the same arithmetic).
#include "swe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/test_models.h"

namespace {

constexpr uint32_t kDims = 6;
constexpr size_t kRows = 40;

// 40 rows × 6 dims from an LCG: three loose blobs (row i leans on dimension i % 3).
std::vector<float> GoldenRows() {
  std::vector<float> v(kRows * kDims);
  uint32_t s = 12345;
  for (size_t i = 0; i < kRows; ++i) {
    for (uint32_t d = 0; d < kDims; ++d) {
      s = s * 1664525u + 1013904223u;
      v[i * kDims + d] = float((s >> 8) & 0xffff) / 65536.0f - 0.5f + (d == i % 3 ? 2.0f : 0.0f);
    }
  }
  return v;
}

std::vector<float> RandomRows(size_t n, uint32_t dims, uint32_t seed) {
  return swe::testing::RandomVectors(n, dims, seed);
}

uint64_t Bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// FNV-1a over the centroids' bytes (little-endian, as the golden run hashed them).
uint32_t Fnv(const std::vector<float>& values) {
  uint32_t h = 2166136261u;
  for (float c : values) {
    uint32_t b;
    std::memcpy(&b, &c, 4);
    for (int q = 0; q < 4; ++q) {
      h ^= (b >> (8 * q)) & 0xff;
      h *= 16777619u;
    }
  }
  return h;
}

// ---- rank --------------------------------------------------------------------------------------

struct Ranked {
  std::vector<size_t> rows;
  std::vector<float> scores;
};

Ranked Rank(const float* query, const std::vector<float>& rows, uint32_t dims, size_t k, const swe_rank_params* params) {
  Ranked r;
  r.rows.assign(k, 0);
  r.scores.assign(k, 0);
  size_t n = 99;
  EXPECT_EQ(swe_vectors_rank(query, rows.data(), rows.size() / dims, dims, k, params, r.rows.data(), r.scores.data(),
                             &n), SWE_OK) << swe_last_error();
  r.rows.resize(n);
  r.scores.resize(n);
  return r;
}

TEST(CApiVectors, RankIsTheRankingOfAnF32IndexOfTheRows) {
  constexpr uint32_t dims = 16;
  constexpr size_t n = 1500;
  std::vector<float> rows = RandomRows(n, dims, 4);
  for (uint32_t j = 0; j < dims; ++j) {
    rows[900 * dims + j] = rows[10 * dims + j] * 3.0f;  // a tie with row 10, broken by row number
    rows[1200 * dims + j] = 0.0f;                       // a zero row
  }
  swe_index* raw = nullptr;
  ASSERT_EQ(swe_index_create(dims, SWE_DTYPE_F32, &raw), SWE_OK);
  std::unique_ptr<swe_index, void (*)(swe_index*)> index(raw, swe_index_free);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i;
  ASSERT_EQ(swe_index_add(index.get(), ids.data(), rows.data(), n), SWE_OK);
  const std::vector<float> queries = RandomRows(3, dims, 5);
  for (size_t q = 0; q < 4; ++q) {
    const float* query = q < 3 ? queries.data() + q * dims : rows.data() + 10 * dims;
    for (size_t k : {size_t{1}, size_t{7}, n}) {
      std::vector<uint64_t> hit_ids(k);
      std::vector<float> hit_scores(k);
      size_t hits = 0;
      ASSERT_EQ(swe_index_search(index.get(), query, dims, k, nullptr, hit_ids.data(), hit_scores.data(), &hits), SWE_OK);
      const Ranked r = Rank(query, rows, dims, k, nullptr);
      ASSERT_EQ(r.rows.size(), hits);
      for (size_t i = 0; i < hits; ++i) {
        EXPECT_EQ(r.rows[i], hit_ids[i]) << q << " " << k << " " << i;
        EXPECT_EQ(std::memcmp(&r.scores[i], &hit_scores[i], sizeof(float)), 0) << q << " " << k << " " << i;
      }
    }
  }
  const Ranked tie = Rank(rows.data() + 10 * dims, rows, dims, 2, nullptr);
  ASSERT_EQ(tie.rows.size(), 2u);
  EXPECT_EQ(tie.rows[0], 10u);
  EXPECT_EQ(tie.rows[1], 900u);
  EXPECT_EQ(tie.scores[0], tie.scores[1]);
  // The zero row scores 0; a zero query (a text with no known word) matches nothing.
  const Ranked all = Rank(queries.data(), rows, dims, n + 5, nullptr);
  ASSERT_EQ(all.rows.size(), n);
  for (size_t i = 0; i < n; ++i) {
    if (all.rows[i] == 1200) EXPECT_EQ(all.scores[i], 0.0f);
  }
  EXPECT_TRUE(Rank(rows.data() + 1200 * dims, rows, dims, 5, nullptr).rows.empty());
}

TEST(CApiVectors, RankFloorOrderAndRefusals) {
  const std::vector<float> rows = RandomRows(50, kDims, 6);
  const float* query = rows.data() + 7 * kDims;
  const Ranked all = Rank(query, rows, kDims, 50, nullptr);
  swe_rank_params params = swe_rank_default_params();
  EXPECT_EQ(params.min_score, -INFINITY);
  EXPECT_EQ(params.order, SWE_RANK_BEST_FIRST);
  params.min_score = 0.2f;
  const Ranked above = Rank(query, rows, kDims, 50, &params);
  size_t expected = 0;
  for (float s : all.scores) expected += s >= 0.2f;
  ASSERT_EQ(above.rows.size(), expected);
  ASSERT_GT(expected, 1u);
  ASSERT_LT(expected, 50u);
  for (size_t i = 0; i < expected; ++i) EXPECT_EQ(above.rows[i], all.rows[i]);
  // Row order: the same hits, in the input's order (a filter); with k cut first.
  params.order = SWE_RANK_ROW_ORDER;
  const Ranked filtered = Rank(query, rows, kDims, 50, &params);
  ASSERT_EQ(filtered.rows.size(), expected);
  for (size_t i = 1; i < expected; ++i) EXPECT_LT(filtered.rows[i - 1], filtered.rows[i]);
  const Ranked best3 = Rank(query, rows, kDims, 3, &params);
  ASSERT_EQ(best3.rows.size(), 3u);
  std::vector<size_t> top(all.rows.begin(), all.rows.begin() + 3);
  std::sort(top.begin(), top.end());
  EXPECT_EQ(best3.rows, top);
  // k 0, no rows, scores not wanted.
  EXPECT_TRUE(Rank(query, rows, kDims, 0, nullptr).rows.empty());
  size_t n = 9, row = 0;
  EXPECT_EQ(swe_vectors_rank(query, nullptr, 0, kDims, 5, nullptr, &row, nullptr, &n), SWE_OK);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(swe_vectors_rank(query, rows.data(), 50, kDims, 1, nullptr, &row, nullptr, &n), SWE_OK);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(row, all.rows[0]);
  // Refusals: NaN floor, unknown order, non-finite values, NULLs, dims 0.
  params = swe_rank_default_params();
  params.min_score = std::numeric_limits<float>::quiet_NaN();
  std::vector<size_t> out(5);
  EXPECT_EQ(swe_vectors_rank(query, rows.data(), 50, kDims, 5, &params, out.data(), nullptr, &n), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("NaN"), std::string::npos);
  params = swe_rank_default_params();
  params.order = 2;
  EXPECT_EQ(swe_vectors_rank(query, rows.data(), 50, kDims, 5, &params, out.data(), nullptr, &n), SWE_ERR_INVALID_ARGUMENT);
  std::vector<float> bad = rows;
  bad[30 * kDims + 2] = INFINITY;
  EXPECT_EQ(swe_vectors_rank(query, bad.data(), 50, kDims, 5, nullptr, out.data(), nullptr, &n), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("row 30"), std::string::npos);
  EXPECT_EQ(swe_vectors_rank(bad.data() + 30 * kDims, rows.data(), 50, kDims, 5, nullptr, out.data(), nullptr, &n),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_vectors_rank(nullptr, rows.data(), 50, kDims, 5, nullptr, out.data(), nullptr, &n), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_vectors_rank(query, rows.data(), 50, kDims, 5, nullptr, nullptr, nullptr, &n), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_vectors_rank(query, rows.data(), 50, kDims, 5, nullptr, out.data(), nullptr, nullptr), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_vectors_rank(query, rows.data(), 50, 0, 5, nullptr, out.data(), nullptr, &n), SWE_ERR_INVALID_ARGUMENT);
}

// ---- near-duplicate groups ---------------------------------------------------------------------

std::vector<std::vector<size_t>> Groups(const std::vector<float>& rows, uint32_t dims, double threshold,
                                        std::vector<float>* scores = nullptr) {
  const size_t n = rows.size() / dims;
  std::vector<size_t> group_of(n, 99);
  if (scores) scores->assign(n, -5.0f);
  size_t n_groups = 0;
  EXPECT_EQ(swe_vectors_near_duplicates(rows.data(), n, dims, threshold, group_of.data(),
                                        scores ? scores->data() : nullptr, &n_groups), SWE_OK) << swe_last_error();
  std::vector<std::vector<size_t>> groups(n_groups);
  for (size_t i = 0; i < n; ++i) groups.at(group_of[i]).push_back(i);
  return groups;
}

TEST(CApiVectors, NearDuplicateGroupsAsTheSweProgramGaveThem) {
  const std::vector<float> rows = GoldenRows();
  using G = std::vector<std::vector<size_t>>;
  EXPECT_EQ(Groups(rows, kDims, 0.5), (G{{0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39},
                                         {1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34, 37},
                                         {2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 32, 35, 38}}));
  EXPECT_EQ(Groups(rows, kDims, 0.9), (G{{0, 6, 12, 21, 27, 30, 39}, {1, 4, 7, 10, 16, 19, 28, 31, 34, 37},
                                         {2, 5, 8, 14, 17, 20, 29, 32, 35}, {3, 9, 33}, {11, 23, 26, 38},
                                         {13, 22, 25}, {15, 18, 36}, {24}}));
  std::vector<float> scores;
  const G fine = Groups(rows, kDims, 0.99, &scores);
  EXPECT_EQ(fine.size(), 38u);
  EXPECT_EQ(fine[8], (std::vector<size_t>{8, 20}));
  EXPECT_EQ(fine[10], (std::vector<size_t>{10, 34}));
  // Each row's score is its cosine with its representative: 1 for the representative.
  for (const auto& g : fine) {
    EXPECT_EQ(scores[g[0]], 1.0f);
    for (size_t m = 1; m < g.size(); ++m) EXPECT_GE(scores[g[m]], 0.99f);
  }
}

TEST(CApiVectors, NearDuplicatesOfZeroAndIdenticalRows) {
  using G = std::vector<std::vector<size_t>>;
  // A zero row first is a group of its own even at -1 (its cosine, 0, would pass): the rows after it
  // do not join it, and it joins none.
  std::vector<float> scores;
  EXPECT_EQ(Groups({0, 0, 1, 0, 0, 1, 0, 0}, 2, -1, &scores), (G{{0}, {1, 2}, {3}}));
  EXPECT_EQ(scores[0], 0.0f);
  EXPECT_EQ(scores[3], 0.0f);
  // Two identical rows score exactly 1 (a product of inverse norms rounds this one to 0.9999999999999998).
  const std::vector<float> row = {-0.2152811586856842f, 0.4290890693664551f, -0.49124860763549805f, 0.3892102539539337f};
  std::vector<float> twice = row;
  twice.insert(twice.end(), row.begin(), row.end());
  EXPECT_EQ(Groups(twice, 4, 1.0, &scores), (G{{0, 1}}));
  EXPECT_EQ(scores[1], 1.0f);
  EXPECT_TRUE(Groups({}, 4, 0.5).empty());
  size_t groups = 0;
  std::vector<size_t> out(2);
  for (double bad : {1.5, -1.01, std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_EQ(swe_vectors_near_duplicates(twice.data(), 2, 4, bad, out.data(), nullptr, &groups), SWE_ERR_INVALID_ARGUMENT);
  }
  twice[5] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(swe_vectors_near_duplicates(twice.data(), 2, 4, 0.5, out.data(), nullptr, &groups), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_vectors_near_duplicates(row.data(), 1, 4, 0.5, nullptr, nullptr, &groups), SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_vectors_near_duplicates(row.data(), 1, 4, 0.5, out.data(), nullptr, nullptr), SWE_ERR_INVALID_ARGUMENT);
}

// ---- k-means -----------------------------------------------------------------------------------

struct Clusters {
  std::vector<int32_t> labels;
  std::vector<float> centroids;
  double inertia = -1;
  uint32_t iterations = 0;
};

Clusters KMeans(const std::vector<float>& rows, uint32_t dims, uint32_t k, const swe_kmeans_params* params) {
  Clusters c;
  c.labels.assign(rows.size() / dims, 99);
  c.centroids.assign(size_t{k} * dims, -5.0f);
  EXPECT_EQ(swe_vectors_kmeans(rows.data(), rows.size() / dims, dims, k, params, c.labels.data(), c.centroids.data(),
                               &c.inertia, &c.iterations), SWE_OK) << swe_last_error();
  return c;
}

TEST(CApiVectors, KMeansGivesTheClustersOfTheSameSeedsBeforeTheMove) {
  struct Golden {
    uint32_t k, seed, restarts, iterations;
    uint64_t inertia_bits;
    uint32_t centroids_fnv;
    std::vector<int32_t> labels;
  };
  const std::vector<Golden> golden = {
      {3, 0, 4, 2, 0x40326d5c4acd24c1, 0x8ac3b8f2,
       {1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1}},
      {4, 7, 1, 2, 0x4030940dc986001f, 0x0a8d72dd,
       {0, 3, 2, 1, 3, 2, 1, 3, 2, 1, 3, 2, 1, 3, 2, 0, 3, 2, 0, 3, 2, 0, 3, 2, 0, 3, 2, 0, 3, 2, 1, 3, 2, 1, 3, 2, 0, 3, 2, 1}},
      {5, 12345, 3, 3, 0x402de732d0fd24a3, 0x13f7be57,
       {4, 2, 0, 1, 2, 0, 1, 2, 0, 3, 2, 0, 4, 2, 0, 4, 2, 0, 4, 2, 0, 4, 2, 0, 4, 2, 0, 4, 2, 0, 1, 2, 0, 3, 2, 0, 3, 2, 0, 1}},
      {2, 4294967295u, 8, 2, 0x4051a8587453cc9f, 0x2b4e0ff5,
       {1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1}},
  };
  const std::vector<float> rows = GoldenRows();
  // The same rows with zero rows among them: left out (-1), the others clustered exactly as before.
  std::vector<float> with_zeros;
  const std::vector<float> zero(kDims, 0.0f);
  for (size_t i = 0; i < kRows; ++i) {
    if (i % 9 == 0) with_zeros.insert(with_zeros.end(), zero.begin(), zero.end());
    with_zeros.insert(with_zeros.end(), rows.begin() + i * kDims, rows.begin() + (i + 1) * kDims);
  }
  for (const Golden& g : golden) {
    swe_kmeans_params params = swe_kmeans_default_params();
    params.seed = g.seed;
    params.restarts = g.restarts;
    const Clusters c = KMeans(rows, kDims, g.k, &params);
    EXPECT_EQ(c.labels, g.labels) << "seed " << g.seed;
    EXPECT_EQ(Bits(c.inertia), g.inertia_bits) << "seed " << g.seed << ": " << c.inertia;
    EXPECT_EQ(Fnv(c.centroids), g.centroids_fnv) << "seed " << g.seed;
    EXPECT_EQ(c.iterations, g.iterations) << "seed " << g.seed;
    const Clusters z = KMeans(with_zeros, kDims, g.k, &params);
    std::vector<int32_t> kept;
    for (size_t i = 0, r = 0; i < z.labels.size(); ++i) {
      const bool is_zero = std::all_of(with_zeros.begin() + i * kDims, with_zeros.begin() + (i + 1) * kDims,
                                       [](float x) { return x == 0.0f; });
      if (is_zero) {
        EXPECT_EQ(z.labels[i], -1) << i;
      } else {
        kept.push_back(z.labels[i]);
        ++r;
      }
    }
    EXPECT_EQ(kept, g.labels) << "seed " << g.seed;
    EXPECT_EQ(Bits(z.inertia), g.inertia_bits);
    EXPECT_EQ(z.centroids, c.centroids);
  }
}

TEST(CApiVectors, KMeansDefaultsOptionalOutputsAndRefusals) {
  const swe_kmeans_params defaults = swe_kmeans_default_params();
  EXPECT_EQ(defaults.seed, 0u);
  EXPECT_EQ(defaults.restarts, 4u);
  EXPECT_EQ(defaults.max_iterations, 100u);
  const std::vector<float> rows = GoldenRows();
  const Clusters c = KMeans(rows, kDims, 3, nullptr);  // NULL params: the defaults
  EXPECT_EQ(c.labels, KMeans(rows, kDims, 3, &defaults).labels);
  std::vector<int32_t> labels(kRows);
  ASSERT_EQ(swe_vectors_kmeans(rows.data(), kRows, kDims, 3, nullptr, labels.data(), nullptr, nullptr, nullptr), SWE_OK);
  EXPECT_EQ(labels, c.labels);
  // One Lloyd round at most.
  swe_kmeans_params one = defaults;
  one.max_iterations = 1;
  EXPECT_EQ(KMeans(rows, kDims, 3, &one).iterations, 1u);
  // Duplicates only: k centres on the one point, inertia 0, no NaN.
  const Clusters same = KMeans(std::vector<float>(8, 1.0f), 2, 2, nullptr);
  EXPECT_EQ(same.inertia, 0.0);
  for (float x : same.centroids) EXPECT_EQ(x, 1.0f);
  // Refusals: k out of 1 .. nonzero rows, restarts, iterations, a non-finite value, NULL labels.
  std::vector<float> two_zero = {1, 0, 0, 0, 0, 1};
  std::vector<int32_t> out(3);
  EXPECT_EQ(swe_vectors_kmeans(two_zero.data(), 3, 2, 3, nullptr, out.data(), nullptr, nullptr, nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(swe_last_error()).find("1..2 (the nonzero rows)"), std::string::npos) << swe_last_error();
  EXPECT_EQ(swe_vectors_kmeans(two_zero.data(), 3, 2, 0, nullptr, out.data(), nullptr, nullptr, nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_vectors_kmeans(two_zero.data(), 3, 2, 2, nullptr, out.data(), nullptr, nullptr, nullptr), SWE_OK);
  EXPECT_EQ(out, (std::vector<int32_t>{out[0], -1, out[2]}));
  EXPECT_NE(out[0], out[2]);
  for (uint32_t restarts : {0u, 1001u}) {
    swe_kmeans_params p = defaults;
    p.restarts = restarts;
    EXPECT_EQ(swe_vectors_kmeans(two_zero.data(), 3, 2, 1, &p, out.data(), nullptr, nullptr, nullptr),
              SWE_ERR_INVALID_ARGUMENT);
  }
  swe_kmeans_params p = defaults;
  p.max_iterations = 0;
  EXPECT_EQ(swe_vectors_kmeans(two_zero.data(), 3, 2, 1, &p, out.data(), nullptr, nullptr, nullptr), SWE_ERR_INVALID_ARGUMENT);
  two_zero[1] = -INFINITY;
  EXPECT_EQ(swe_vectors_kmeans(two_zero.data(), 3, 2, 1, nullptr, out.data(), nullptr, nullptr, nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_vectors_kmeans(rows.data(), kRows, kDims, 1, nullptr, nullptr, nullptr, nullptr, nullptr),
            SWE_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(swe_vectors_kmeans(nullptr, 0, kDims, 1, nullptr, nullptr, nullptr, nullptr, nullptr), SWE_ERR_INVALID_ARGUMENT);
}

}  // namespace

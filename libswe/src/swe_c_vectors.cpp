// The C API's swe_vectors_*: ranking (core's RankRows, swe/rank.h), near-duplicate groups and k-means
// (vector_groups.cpp) over rows the caller gives; here only their arguments are checked.
#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "swe/rank.h"
#include "vector_groups.h"

using swe::capi::Fail;
using swe::capi::FromStatus;
using swe::capi::Guard;

namespace {

// SWE_ERR_INVALID_ARGUMENT unless `n` rows of `dims` floats can be at `vectors`.
swe_status CheckShape(const char* what, const float* vectors, size_t n, uint32_t dims) {
  SWE_CHECK_ARG(dims > 0, std::string(what) + ": dims must be positive");
  SWE_CHECK_ARG(n == 0 || vectors != nullptr, std::string(what) + ": vectors is NULL");
  SWE_CHECK_ARG(n <= SIZE_MAX / dims, std::string(what) + ": too many rows");
  return SWE_OK;
}

// SWE_ERR_INVALID_ARGUMENT unless `n` rows of `dims` finite floats are at `vectors`.
swe_status CheckRows(const char* what, const float* vectors, size_t n, uint32_t dims) {
  if (swe_status s = CheckShape(what, vectors, n, dims); s != SWE_OK) return s;
  for (size_t i = 0; i < n * size_t{dims}; ++i) {
    if (!std::isfinite(vectors[i])) {
      return Fail(SWE_ERR_INVALID_ARGUMENT, std::string(what) + ": row " + std::to_string(i / dims) +
                                                " has a non-finite value");
    }
  }
  return SWE_OK;
}

}  // namespace

extern "C" {

swe_rank_params swe_rank_default_params(void) { return swe_rank_params{-INFINITY, SWE_RANK_BEST_FIRST}; }

swe_status swe_vectors_rank(const float* query, const float* vectors, size_t n, uint32_t dims, size_t k,
                            const swe_rank_params* params, size_t* out_rows, float* out_scores, size_t* out_n) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(query && out_n, "swe_vectors_rank: NULL query or count");
    *out_n = 0;
    SWE_CHECK_ARG(k == 0 || n == 0 || out_rows, "swe_vectors_rank: out_rows is NULL");
    const swe_rank_params p = params ? *params : swe_rank_default_params();
    SWE_CHECK_ARG(!std::isnan(p.min_score), "swe_vectors_rank: min_score is NaN");
    SWE_CHECK_ARG(p.order == SWE_RANK_BEST_FIRST || p.order == SWE_RANK_ROW_ORDER,
                  "swe_vectors_rank: order must be SWE_RANK_BEST_FIRST or SWE_RANK_ROW_ORDER, not " +
                      std::to_string(p.order));
    if (swe_status s = CheckShape("swe_vectors_rank", vectors, n, dims); s != SWE_OK) return s;
    if (swe_status s = CheckRows("swe_vectors_rank: query", query, 1, dims); s != SWE_OK) return s;
    // RankRows checks the rows as it reads them (one pass over memory). A text with no known word is
    // similar to nothing: k = 0, the rows still checked.
    const size_t kk = swe::capi::IsZero(query, dims) ? 0 : k;
    std::vector<swe::SearchHit> hits;
    if (swe_status s = FromStatus(swe::RankRows(query, vectors, n, dims, kk, p.min_score, &hits), "swe_vectors_rank");
        s != SWE_OK) {
      return s;
    }
    if (p.order == SWE_RANK_ROW_ORDER) {
      std::sort(hits.begin(), hits.end(), [](const swe::SearchHit& a, const swe::SearchHit& b) { return a.id < b.id; });
    }
    for (size_t i = 0; i < hits.size(); ++i) {
      out_rows[i] = static_cast<size_t>(hits[i].id);
      if (out_scores) out_scores[i] = hits[i].score;
    }
    *out_n = hits.size();
    return SWE_OK;
  });
}

swe_status swe_vectors_near_duplicates(const float* vectors, size_t n, uint32_t dims, double threshold,
                                       size_t* out_groups, float* out_scores, size_t* out_n_groups) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(out_n_groups != nullptr, "swe_vectors_near_duplicates: out_n_groups is NULL");
    *out_n_groups = 0;
    SWE_CHECK_ARG(n == 0 || out_groups, "swe_vectors_near_duplicates: out_groups is NULL");
    SWE_CHECK_ARG(threshold >= -1 && threshold <= 1,
                  "swe_vectors_near_duplicates: threshold must be in [-1, 1], not " + std::to_string(threshold));
    if (swe_status s = CheckRows("swe_vectors_near_duplicates", vectors, n, dims); s != SWE_OK) return s;
    *out_n_groups = swe::capi::NearDuplicateGroups(vectors, n, dims, threshold, out_groups, out_scores);
    return SWE_OK;
  });
}

swe_kmeans_params swe_kmeans_default_params(void) { return swe_kmeans_params{0, 4, 100}; }

swe_status swe_vectors_kmeans(const float* vectors, size_t n, uint32_t dims, uint32_t k,
                              const swe_kmeans_params* params, int32_t* out_labels, float* out_centroids,
                              double* out_inertia, uint32_t* out_iterations) {
  return Guard([&]() -> swe_status {
    SWE_CHECK_ARG(n == 0 || out_labels, "swe_vectors_kmeans: out_labels is NULL");
    const swe_kmeans_params p = params ? *params : swe_kmeans_default_params();
    SWE_CHECK_ARG(p.restarts >= 1 && p.restarts <= 1000,
                  "swe_vectors_kmeans: restarts must be in 1..1000, not " + std::to_string(p.restarts));
    SWE_CHECK_ARG(p.max_iterations >= 1, "swe_vectors_kmeans: max_iterations must be at least 1");
    if (swe_status s = CheckRows("swe_vectors_kmeans", vectors, n, dims); s != SWE_OK) return s;
    // The nonzero rows: a zero vector (a text with no known word) is no point to cluster.
    std::vector<size_t> rows;
    for (size_t i = 0; i < n; ++i) {
      if (!swe::capi::IsZero(vectors + i * dims, dims)) rows.push_back(i);
    }
    if (k < 1 || k > rows.size()) {
      return Fail(SWE_ERR_INVALID_ARGUMENT, "swe_vectors_kmeans: k must be in 1.." + std::to_string(rows.size()) +
                                                " (the nonzero rows), not " + std::to_string(k));
    }
    std::vector<float> kept;  // the nonzero rows together, when some rows are zero
    if (rows.size() < n) {
      kept.reserve(rows.size() * dims);
      for (size_t i : rows) kept.insert(kept.end(), vectors + i * dims, vectors + (i + 1) * dims);
    }
    const swe::capi::KMeansResult result =
        swe::capi::KMeans(kept.empty() ? vectors : kept.data(), rows.size(), dims, k, p.seed,
                          static_cast<int>(p.restarts), static_cast<int>(std::min<uint32_t>(p.max_iterations, INT_MAX)));
    std::fill(out_labels, out_labels + n, -1);
    for (size_t r = 0; r < rows.size(); ++r) out_labels[rows[r]] = result.labels[r];
    if (out_centroids) std::copy(result.centroids.begin(), result.centroids.end(), out_centroids);
    if (out_inertia) *out_inertia = result.inertia;
    if (out_iterations) *out_iterations = static_cast<uint32_t>(result.iterations);
    return SWE_OK;
  });
}

}  // extern "C"

// Near-duplicate groups and k-means over sentence vectors (n rows × dims floats, row-major): what
// swe_vectors_near_duplicates and swe_vectors_kmeans compute (swe_c_vectors.cpp checks their
// arguments), for every binding. Sums in double precision, a seeded mulberry32 stream: the same
// groups and clusters on every machine, natively and in wasm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace swe::capi {

// Greedy leader grouping: each row joins the first earlier group whose first row (its representative)
// has cosine ≥ threshold with it, else starts a group. Groups are in order of their representatives.
// A zero row (a text with no known word) is never a duplicate: it is a group of its own.
// out_groups[i] (n) receives row i's group, out_scores[i] (n; may be null) its cosine with the group's
// first row (1 for that row, 0 for a zero row); returns the number of groups.
size_t NearDuplicateGroups(const float* vectors, size_t n, uint32_t dims, double threshold, size_t* out_groups,
                           float* out_scores);

struct KMeansResult {
  std::vector<int32_t> labels;  // cluster of each row, 0..k-1
  std::vector<float> centroids;  // k × dims
  double inertia = 0;            // sum of squared distances to the centroids
  int iterations = 0;
};

// k-means (Euclidean, which on unit vectors orders like cosine): `restarts` k-means++ starts drawn one
// after another from a mulberry32 generator seeded with `seed`, each followed by Lloyd rounds until no
// row changes cluster or `max_iterations`; the result of lowest inertia (the earliest on ties). One
// start can stop in a local optimum even on two clear topics, hence several. Every row takes part
// (the caller leaves zero rows out). Requires 1 ≤ k ≤ n, restarts ≥ 1 and max_iterations ≥ 1.
KMeansResult KMeans(const float* vectors, size_t n, uint32_t dims, uint32_t k, uint32_t seed, int restarts,
                    int max_iterations);

// mulberry32: uniform doubles in [0, 1), as the JavaScript original gives them (its 32-bit steps).
class Mulberry32 {
 public:
  explicit Mulberry32(uint32_t seed) : state_(seed) {}
  double Next();

 private:
  uint32_t state_;
};

}  // namespace swe::capi

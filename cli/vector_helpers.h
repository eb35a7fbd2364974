// Near-duplicate groups and k-means over sentence vectors (n rows × dims floats, row-major): the CLI's
// dedupe and cluster. The same rules and arithmetic as js/src/helpers.js (nearDuplicateGroups, kmeans
// with its mulberry32 seed), so a seed gives the same clusters in the CLI and in JS.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace swe::cli {

// Greedy leader grouping: each row joins the first earlier group whose first row (its representative)
// has cosine ≥ threshold with it, else starts a group. Groups are in order of their representatives.
// A zero row (a text with no known word) is never a duplicate: it is a group of its own.
std::vector<std::vector<size_t>> NearDuplicateGroups(const float* vectors, size_t n, uint32_t dims, double threshold);

// Cosine of rows i and j of `vectors`; 0 when either is zero.
double RowCosine(const float* vectors, uint32_t dims, size_t i, size_t j);

struct KMeansResult {
  std::vector<int32_t> labels;  // cluster of each row, 0..k-1
  std::vector<float> centroids;  // k × dims
  double inertia = 0;            // sum of squared distances to the centroids
  int iterations = 0;
};

// k-means (Euclidean, which on unit vectors orders like cosine): `restarts` k-means++ starts drawn one
// after another from a mulberry32 generator seeded with `seed`, each followed by Lloyd rounds until no
// row changes cluster or `max_iterations`; the result of lowest inertia (the earliest on ties). One
// start can stop in a local optimum even on two clear topics, hence several by default.
// Requires 1 ≤ k ≤ n and restarts ≥ 1.
constexpr int kDefaultKMeansRestarts = 4;
KMeansResult KMeans(const float* vectors, size_t n, uint32_t dims, uint32_t k, uint32_t seed,
                    int restarts = kDefaultKMeansRestarts, int max_iterations = 100);

// mulberry32: uniform doubles in [0, 1), bit-identical to helpers.js's.
class Mulberry32 {
 public:
  explicit Mulberry32(uint32_t seed) : state_(seed) {}
  double Next();

 private:
  uint32_t state_;
};

}  // namespace swe::cli

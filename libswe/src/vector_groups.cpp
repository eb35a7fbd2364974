// Near-duplicate groups and k-means: sums in double, centroids stored as float. (Written once in C++
// and once in JS until both moved here; the arithmetic is that of both, so their seeds' clusters stay.)
#include "vector_groups.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace swe::capi {
namespace {

double Dot(const float* a, size_t i, const float* b, size_t j, uint32_t dims) {
  const float* x = a + i * dims;
  const float* y = b + j * dims;
  double s = 0;
  for (uint32_t d = 0; d < dims; ++d) s += static_cast<double>(x[d]) * y[d];
  return s;
}

double Distance2(const float* a, size_t i, const float* b, size_t j, uint32_t dims) {
  const float* x = a + i * dims;
  const float* y = b + j * dims;
  double s = 0;
  for (uint32_t d = 0; d < dims; ++d) {
    const double t = static_cast<double>(x[d]) - y[d];
    s += t * t;
  }
  return s;
}

// Cosine from a dot product and the two squared norms, as dot / sqrt(|a|^2 |b|^2): exactly 1 for two identical rows (dot = |a|^2 = |b|^2, and sqrt(x * x) = x), which dedupe's
// threshold 1 must merge; a product of inverse norms can round below 1. 0 when either row is zero.
double Cosine(double dot, double square_a, double square_b) {
  return square_a == 0 || square_b == 0 ? 0 : dot / std::sqrt(square_a * square_b);
}

// Each row to its nearest centroid (the lower number on ties); true when a label changed.
bool Assign(const float* vectors, const std::vector<float>& centroids, std::vector<int32_t>& labels, uint32_t k,
            uint32_t dims) {
  bool changed = false;
  for (size_t i = 0; i < labels.size(); ++i) {
    int32_t best = 0;
    double best_distance = std::numeric_limits<double>::infinity();
    for (uint32_t c = 0; c < k; ++c) {
      const double d = Distance2(vectors, i, centroids.data(), c, dims);
      if (d < best_distance) {
        best = static_cast<int32_t>(c);
        best_distance = d;
      }
    }
    if (labels[i] != best) {
      labels[i] = best;
      changed = true;
    }
  }
  return changed;
}

// Centroids as the means of their rows; an emptied cluster keeps its centroid.
void UpdateCentroids(const float* vectors, std::vector<float>& centroids, const std::vector<int32_t>& labels,
                     uint32_t k, uint32_t dims) {
  std::vector<double> sums(size_t{k} * dims);
  std::vector<uint32_t> counts(k);
  for (size_t i = 0; i < labels.size(); ++i) {
    const size_t c = static_cast<size_t>(labels[i]);
    ++counts[c];
    for (uint32_t d = 0; d < dims; ++d) sums[c * dims + d] += vectors[i * dims + d];
  }
  for (size_t c = 0; c < k; ++c) {
    if (counts[c] == 0) continue;
    for (uint32_t d = 0; d < dims; ++d) centroids[c * dims + d] = static_cast<float>(sums[c * dims + d] / counts[c]);
  }
}

}  // namespace

double Mulberry32::Next() {
  state_ += 0x6d2b79f5u;
  uint32_t t = state_;
  t = (t ^ (t >> 15)) * (t | 1);
  t ^= t + (t ^ (t >> 7)) * (t | 61);
  return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
}

size_t NearDuplicateGroups(const float* vectors, size_t n, uint32_t dims, double threshold, size_t* out_groups,
                           float* out_scores) {
  std::vector<double> squares(n);
  for (size_t i = 0; i < n; ++i) squares[i] = Dot(vectors, i, vectors, i, dims);
  std::vector<size_t> firsts;  // each group's first row (its representative)
  for (size_t i = 0; i < n; ++i) {
    size_t group = firsts.size();
    double score = squares[i] == 0 ? 0 : 1;  // as a representative: its cosine with itself
    if (squares[i] != 0) {  // a zero row joins no group, and no row joins a zero row's group
      for (size_t g = 0; g < firsts.size(); ++g) {
        const size_t first = firsts[g];
        if (squares[first] == 0) continue;
        const double cosine = Cosine(Dot(vectors, first, vectors, i, dims), squares[first], squares[i]);
        if (cosine >= threshold) {
          group = g;
          score = cosine;
          break;
        }
      }
    }
    if (group == firsts.size()) firsts.push_back(i);
    out_groups[i] = group;
    if (out_scores != nullptr) out_scores[i] = static_cast<float>(score);
  }
  return firsts.size();
}

namespace {

// One k-means++ start drawn from `random`, then Lloyd rounds.
KMeansResult KMeansOnce(const float* vectors, size_t n, uint32_t dims, uint32_t k, Mulberry32& random,
                        int max_iterations) {
  KMeansResult result;
  result.centroids.assign(size_t{k} * dims, 0.0f);
  std::vector<double> nearest(n, std::numeric_limits<double>::infinity());  // squared distance to the nearest centre
  size_t pick = static_cast<size_t>(std::floor(random.Next() * static_cast<double>(n)));
  for (uint32_t c = 0; c < k; ++c) {
    std::copy_n(vectors + pick * dims, dims, result.centroids.data() + size_t{c} * dims);
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
      nearest[i] = std::min(nearest[i], Distance2(vectors, i, result.centroids.data(), c, dims));
      sum += nearest[i];
    }
    // k-means++: the next centre is a row drawn with probability ∝ its squared distance (the last row
    // off the centres if rounding leaves none); when every row sits on a centre (duplicates), any.
    double target = random.Next() * sum;
    pick = 0;
    for (size_t i = 0; i < n; ++i) {
      if (nearest[i] == 0) continue;
      pick = i;
      target -= nearest[i];
      if (target < 0) break;
    }
  }
  result.labels.assign(n, -1);
  bool changed = true;
  for (; changed && result.iterations < max_iterations; ++result.iterations) {
    changed = Assign(vectors, result.centroids, result.labels, k, dims);
    if (changed) UpdateCentroids(vectors, result.centroids, result.labels, k, dims);
  }
  for (size_t i = 0; i < n; ++i) result.inertia += Distance2(vectors, i, result.centroids.data(), result.labels[i], dims);
  return result;
}

}  // namespace

KMeansResult KMeans(const float* vectors, size_t n, uint32_t dims, uint32_t k, uint32_t seed, int restarts,
                    int max_iterations) {
  Mulberry32 random(seed);  // one stream for every start: start r begins where start r - 1 stopped drawing
  KMeansResult best = KMeansOnce(vectors, n, dims, k, random, max_iterations);
  for (int r = 1; r < restarts; ++r) {
    KMeansResult result = KMeansOnce(vectors, n, dims, k, random, max_iterations);
    if (result.inertia < best.inertia) best = std::move(result);
  }
  return best;
}

}  // namespace swe::capi

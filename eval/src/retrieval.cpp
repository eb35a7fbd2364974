#include "swe/eval/retrieval.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace swe::eval {
namespace {

using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

MatrixF Normalized(const Features& f) {
  MatrixF m = Eigen::Map<const MatrixF>(f.x.data(), f.n, f.d);
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    const float norm = m.row(i).norm();
    if (norm > 0) m.row(i) /= norm;
  }
  return m;
}

double NearestAccuracy(const std::vector<float>& sim, size_t rows, size_t cols, bool transpose) {
  if (rows == 0) return 0;
  size_t correct = 0;
  for (size_t i = 0; i < rows; ++i) {
    size_t best = 0;
    float best_score = -INFINITY;
    for (size_t j = 0; j < cols; ++j) {
      const float s = transpose ? sim[j * rows + i] : sim[i * cols + j];
      if (s > best_score) best_score = s, best = j;
    }
    correct += best == i;
  }
  return static_cast<double>(correct) / rows;
}

// Mean of the k largest values of row i (or column i when `column`).
std::vector<double> TopKMeans(const std::vector<float>& sim, size_t rows, size_t cols, int k, bool column) {
  const size_t count = column ? cols : rows, len = column ? rows : cols;
  const size_t kk = std::min<size_t>(k, len);
  std::vector<double> out(count, 0);
  std::vector<float> buf(len);
  for (size_t i = 0; i < count; ++i) {
    for (size_t j = 0; j < len; ++j) buf[j] = column ? sim[j * cols + i] : sim[i * cols + j];
    if (kk == 0) continue;
    std::partial_sort(buf.begin(), buf.begin() + kk, buf.end(), std::greater<float>());
    out[i] = std::accumulate(buf.begin(), buf.begin() + kk, 0.0) / kk;
  }
  return out;
}

}  // namespace

std::vector<float> CosineMatrix(const Features& a, const Features& b) {
  const MatrixF na = Normalized(a), nb = Normalized(b);
  MatrixF s = na * nb.transpose();
  return std::vector<float>(s.data(), s.data() + s.size());
}

TatoebaResult TatoebaAccuracy(const Features& a, const Features& b) {
  TatoebaResult r;
  if (a.n == 0 || a.n != b.n || a.d != b.d) return r;
  const std::vector<float> sim = CosineMatrix(a, b);
  r.a_to_b = NearestAccuracy(sim, a.n, b.n, false);
  r.b_to_a = NearestAccuracy(sim, b.n, a.n, true);
  r.accuracy = (r.a_to_b + r.b_to_a) / 2;
  return r;
}

BuccResult BuccF1(const Features& source, const Features& target, const std::vector<std::pair<size_t, size_t>>& gold,
                  int k) {
  BuccResult r;
  r.gold = gold.size();
  if (source.n == 0 || target.n == 0 || source.d != target.d) return r;
  const std::vector<float> sim = CosineMatrix(source, target);
  const std::vector<double> src_knn = TopKMeans(sim, source.n, target.n, k, false);
  const std::vector<double> tgt_knn = TopKMeans(sim, source.n, target.n, k, true);
  struct Candidate {
    double score;
    size_t s, t;
  };
  std::vector<Candidate> candidates;
  for (size_t i = 0; i < source.n; ++i) {
    Candidate best{-INFINITY, i, 0};
    for (size_t j = 0; j < target.n; ++j) {
      const double denom = src_knn[i] / 2 + tgt_knn[j] / 2;
      const double margin = denom > 0 ? sim[i * target.n + j] / denom : sim[i * target.n + j];
      if (margin > best.score) best.score = margin, best.t = j;
    }
    candidates.push_back(best);
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& x, const Candidate& y) { return x.score > y.score; });
  r.candidates = candidates.size();
  const std::set<std::pair<size_t, size_t>> gold_set(gold.begin(), gold.end());
  size_t hits = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    hits += gold_set.count({candidates[i].s, candidates[i].t});
    // Only cut between different scores, so equal scores are kept or dropped together.
    if (i + 1 < candidates.size() && candidates[i + 1].score == candidates[i].score) continue;
    const double p = static_cast<double>(hits) / (i + 1);
    const double rec = gold_set.empty() ? 0 : static_cast<double>(hits) / gold_set.size();
    const double f1 = p + rec > 0 ? 2 * p * rec / (p + rec) : 0;
    if (f1 > r.f1) {
      r.f1 = f1, r.precision = p, r.recall = rec;
      r.threshold = i + 1 < candidates.size() ? (candidates[i].score + candidates[i + 1].score) / 2 : candidates[i].score;
    }
  }
  return r;
}

}  // namespace swe::eval

#include "swe/eval/retrieval.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string_view>
#include <unordered_map>

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

// The nearest column of each row of the rows x cols matrix `sim` (of each column when `transpose`:
// sim is then read as its transpose), ties to the lower index.
std::vector<size_t> Nearest(const std::vector<float>& sim, size_t rows, size_t cols, bool transpose) {
  std::vector<size_t> nearest(rows, 0);
  for (size_t i = 0; i < rows; ++i) {
    float best_score = -INFINITY;
    for (size_t j = 0; j < cols; ++j) {
      const float s = transpose ? sim[j * rows + i] : sim[i * cols + j];
      if (s > best_score) best_score = s, nearest[i] = j;
    }
  }
  return nearest;
}

// Each row's text class: the first row with the same text (the row itself when texts is empty).
std::vector<size_t> FirstOfText(const std::vector<std::string>& texts, size_t n) {
  std::vector<size_t> first(n);
  std::unordered_map<std::string_view, size_t> seen;
  for (size_t i = 0; i < n; ++i) first[i] = texts.empty() ? i : seen.emplace(texts[i], i).first->second;
  return first;
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

// The first min(k, n) rows of `scores` by descending score, ties to the lower row.
std::vector<size_t> TopK(const float* scores, size_t n, size_t k) {
  std::vector<size_t> rows(n);
  std::iota(rows.begin(), rows.end(), size_t{0});
  k = std::min(k, n);
  std::partial_sort(rows.begin(), rows.begin() + k, rows.end(),
                    [scores](size_t a, size_t b) { return scores[a] > scores[b] || (scores[a] == scores[b] && a < b); });
  rows.resize(k);
  return rows;
}

double Relevance(const Judgements& judged, size_t row) {
  for (const auto& [r, rel] : judged) {
    if (r == row) return rel;
  }
  return 0;
}

}  // namespace

double NdcgAtK(const std::vector<size_t>& ranking, const Judgements& judged, size_t k) {
  double dcg = 0, ideal = 0;
  for (size_t r = 0; r < std::min(k, ranking.size()); ++r) {
    dcg += std::max(0.0, Relevance(judged, ranking[r])) / std::log2(r + 2.0);
  }
  std::vector<double> gains;
  for (const auto& j : judged) gains.push_back(std::max(0.0, j.second));
  std::sort(gains.begin(), gains.end(), std::greater<double>());
  for (size_t r = 0; r < std::min(k, gains.size()); ++r) ideal += gains[r] / std::log2(r + 2.0);
  return ideal > 0 ? dcg / ideal : 0;
}

double RecallAtK(const std::vector<size_t>& ranking, const Judgements& judged, size_t k) {
  size_t relevant = 0, found = 0;
  for (const auto& j : judged) relevant += j.second > 0;
  for (size_t r = 0; r < std::min(k, ranking.size()); ++r) found += Relevance(judged, ranking[r]) > 0;
  return relevant > 0 ? static_cast<double>(found) / relevant : 0;
}

RankingResult RankByCosine(const Features& queries, const Features& docs, const std::vector<Judgements>& judged) {
  RankingResult r;
  if (queries.n == 0 || docs.n == 0 || queries.d != docs.d || judged.size() != queries.n) return r;
  const MatrixF nd = Normalized(docs), nq = Normalized(queries);
  constexpr Eigen::Index kBlock = 256;  // queries per product: bounds the score matrix on large corpora
  for (Eigen::Index start = 0; start < nq.rows(); start += kBlock) {
    const Eigen::Index rows = std::min(kBlock, nq.rows() - start);
    const MatrixF scores = nq.middleRows(start, rows) * nd.transpose();
    for (Eigen::Index i = 0; i < rows; ++i) {
      const Judgements& j = judged[start + i];
      if (std::none_of(j.begin(), j.end(), [](const auto& x) { return x.second > 0; })) continue;
      const std::vector<size_t> top = TopK(scores.row(i).data(), docs.n, 100);
      r.ndcg_at_10 += NdcgAtK(top, j, 10);
      r.recall_at_100 += RecallAtK(top, j, 100);
      ++r.queries;
    }
  }
  if (r.queries > 0) r.ndcg_at_10 /= r.queries, r.recall_at_100 /= r.queries;
  return r;
}

std::vector<float> CosineMatrix(const Features& a, const Features& b) {
  const MatrixF na = Normalized(a), nb = Normalized(b);
  MatrixF s = na * nb.transpose();
  return std::vector<float>(s.data(), s.data() + s.size());
}

TatoebaResult TatoebaAccuracy(const Features& a, const Features& b, const std::vector<std::string>& texts_a,
                              const std::vector<std::string>& texts_b) {
  TatoebaResult r;
  if (a.n == 0 || a.n != b.n || a.d != b.d) return r;
  if ((!texts_a.empty() && texts_a.size() != a.n) || (!texts_b.empty() && texts_b.size() != b.n)) return r;
  const std::vector<float> sim = CosineMatrix(a, b);
  const std::vector<size_t> class_a = FirstOfText(texts_a, a.n), class_b = FirstOfText(texts_b, b.n);
  std::set<std::pair<size_t, size_t>> pairs;  // (text class in a, text class in b) of every row
  for (size_t m = 0; m < a.n; ++m) pairs.insert({class_a[m], class_b[m]});
  const std::vector<size_t> a_to_b = Nearest(sim, a.n, b.n, false), b_to_a = Nearest(sim, b.n, a.n, true);
  size_t right_ab = 0, right_ba = 0;
  for (size_t i = 0; i < a.n; ++i) {
    right_ab += pairs.count({class_a[i], class_b[a_to_b[i]]});
    right_ba += pairs.count({class_a[b_to_a[i]], class_b[i]});
  }
  r.a_to_b = static_cast<double>(right_ab) / a.n;
  r.b_to_a = static_cast<double>(right_ba) / b.n;
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

#include "refine/refine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "swe/util/progress.h"
#include "test_util.h"

namespace swe::trainer {
namespace {

// Teacher t = (1,0), (0,1), (1,0); student vectors all equal, so q_i is uniform over the two others.
// Cosines of the teacher: t1.t2 = 0, t1.t3 = 1, t2.t3 = 0. With τ:
//   p_1 = softmax(0, 1/τ) over (2, 3); p_2 = (1/2, 1/2); p_3 = softmax(1/τ, 0) over (1, 2)
// KL(p || uniform) = log 2 − H(p), so the loss is (2/3)(log 2 − H(p_1)) and 0 for row 2.
TEST(TrainerRefine, KdLossMatchesHandComputedValues) {
  const float teacher[] = {1, 0, 0, 1, 1, 0};
  const float student[] = {1, 1, 2, 2, 3, 3};
  for (double tau : {1.0, 0.5, 0.05}) {
    double e = std::exp(1.0 / tau);
    double a = 1 / (1 + e), b = e / (1 + e);
    double h = -(a * std::log(a) + b * std::log(b));
    double expected = 2.0 / 3.0 * (std::log(2.0) - h);
    EXPECT_NEAR(KdLoss(teacher, student, 3, 2, 2, tau), expected, 1e-9) << tau;
  }
  // Identical directions for teacher and student: loss 0, whatever the dims and scales.
  const float s3[] = {2, 0, 0, 0, 3, 0, 5, 0, 0};
  EXPECT_NEAR(KdLoss(teacher, s3, 3, 2, 3, 0.05), 0.0, 1e-12);
  // Two sentences: one "other" each, so the distributions are trivially equal.
  EXPECT_NEAR(KdLoss(teacher, student, 2, 2, 2, 0.05), 0.0, 1e-12);
}

// A student table whose sentence means can imitate a teacher: training lowers the held-out loss.
TEST(TrainerRefine, DistillationLowersHeldOutLossAndKeepsTheBest) {
  util::Progress::SetEnabled(false);
  const uint32_t rows = 40, d = 8, n = 600;
  std::mt19937 rng(5);
  Matrix table;
  const RefineData data = testing::SyntheticKdProblem(rows, d, n, rng, &table);
  const Matrix initial = table;
  RefineOptions o;
  o.batch_size = 32;
  o.lr = 0.05;
  o.max_epochs = 15;
  o.patience = 3;
  o.tau = 0.1;
  RefineReport report;
  ASSERT_TRUE(RefineKd(data, o, &table, &report).ok());
  EXPECT_EQ(report.heldout_sentences, 60u);
  EXPECT_LT(report.best_heldout, 0.5 * report.initial_heldout);
  EXPECT_GE(report.best_epoch, 1u);
  EXPECT_LE(report.heldout_loss.size(), 15u);
  // Deterministic for a seed.
  Matrix again = initial;
  RefineReport report2;
  ASSERT_TRUE(RefineKd(data, o, &again, &report2).ok());
  EXPECT_EQ(again.data, table.data);
  EXPECT_EQ(report2.heldout_loss, report.heldout_loss);
  RefineData bad = data;
  bad.sentences[0] = {rows};
  EXPECT_EQ(RefineKd(bad, o, &again, &report).code(), StatusCode::kInvalidArgument);
}

// One direction of the InfoNCE loss in plain loops: row i of `a` against every row of `b`, the
// positive being b_i: mean over i of log Σ_j exp(cos(a_i, b_j)/τ) − cos(a_i, b_i)/τ.
double OneDirection(const std::vector<float>& a, const std::vector<float>& b, uint32_t n, uint32_t d, double tau) {
  auto cosine = [&](uint32_t i, uint32_t j) {
    double dot = 0, na = 0, nb = 0;
    for (uint32_t k = 0; k < d; ++k) {
      dot += double(a[i * d + k]) * b[j * d + k];
      na += double(a[i * d + k]) * a[i * d + k];
      nb += double(b[j * d + k]) * b[j * d + k];
    }
    return dot / std::sqrt(na * nb);
  };
  double total = 0;
  for (uint32_t i = 0; i < n; ++i) {
    double sum = 0;
    for (uint32_t j = 0; j < n; ++j) sum += std::exp(cosine(i, j) / tau);
    total += std::log(sum) - cosine(i, i) / tau;
  }
  return total / n;
}

// refine.lr_decay linear: with one step an epoch, the first of two steps takes the full rate and the
// second half of it, so (Adam's moments being the same) the second step moves the table half as far as
// without decay; for Adam and for lazy Adam.
TEST(TrainerRefine, LinearDecayHalvesTheSecondOfTwoSteps) {
  util::Progress::SetEnabled(false);
  std::mt19937 rng(6);
  Matrix initial;
  const RefineData data = testing::SyntheticKdProblem(40, 8, 300, rng, &initial);
  for (bool lazy : {false, true}) {
    RefineOptions o;
    o.batch_size = 1000;  // the whole training split: one step an epoch
    o.lr = 0.01;
    o.tau = 0.1;
    o.patience = 5;
    o.lazy_adam = lazy;
    auto run = [&](uint32_t epochs, bool decay) {
      o.max_epochs = epochs;
      o.lr_decay = decay;
      Matrix table = initial;
      RefineReport report;
      EXPECT_TRUE(RefineKd(data, o, &table, &report).ok());
      EXPECT_EQ(report.steps, epochs);
      EXPECT_EQ(report.best_epoch, epochs);  // the loss still falls: the last table is the one returned
      return table;
    };
    const Matrix one = run(1, false), one_decayed = run(1, true), two = run(2, false), two_decayed = run(2, true);
    EXPECT_EQ(one.data, one_decayed.data) << lazy;  // one planned step: the full rate
    double full = 0, half = 0, worst = 0;
    for (size_t i = 0; i < one.data.size(); ++i) {
      const double step = two.data[i] - one.data[i], decayed = two_decayed.data[i] - one.data[i];
      full += std::fabs(step);
      half += std::fabs(decayed);
      worst = std::max(worst, std::fabs(decayed - 0.5 * step));
    }
    std::printf("  lazy %d: second step %.5f without decay, %.5f with (largest deviation from half %.2g)\n", lazy,
                full, half, worst);
    EXPECT_GT(full, 0.01);
    EXPECT_LT(worst, 1e-5) << lazy;
  }
}

TEST(TrainerRefine, ContrastiveLossMatchesHandComputedValues) {
  // Each sentence equals its translation and is orthogonal to the others: s_ii = 1/τ, s_ij = 0, so
  // each direction is −log(e^{1/τ} / (e^{1/τ} + 2)) = log(1 + 2 e^{−1/τ}).
  const std::vector<float> eye = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const std::vector<float> eye_scaled = {3, 0, 0, 0, 0.5f, 0, 0, 0, 7};  // cosines ignore lengths
  for (double tau : {1.0, 0.5, 0.05}) {
    EXPECT_NEAR(ContrastiveLoss(eye.data(), eye_scaled.data(), 3, 3, tau), std::log(1 + 2 * std::exp(-1 / tau)), 1e-9);
  }
  // All sentences alike: the positive is one of B equal candidates, log B.
  const std::vector<float> same = {1, 2, 1, 2, 1, 2, 1, 2};
  EXPECT_NEAR(ContrastiveLoss(same.data(), same.data(), 4, 2, 0.05), std::log(4.0), 1e-9);
  // Random vectors against the loops above, both directions averaged (the two differ here).
  std::mt19937 rng(3);
  std::normal_distribution<float> g;
  const uint32_t n = 5, d = 4;
  std::vector<float> x(n * d), y(n * d);
  for (float& v : x) v = g(rng);
  for (float& v : y) v = g(rng);
  for (double tau : {1.0, 0.2, 0.05}) {
    double xy = OneDirection(x, y, n, d, tau), yx = OneDirection(y, x, n, d, tau);
    EXPECT_GT(std::abs(xy - yx), 1e-3) << tau;
    EXPECT_NEAR(ContrastiveLoss(x.data(), y.data(), n, d, tau), 0.5 * (xy + yx), 1e-9 * (1 + xy + yx)) << tau;
  }
}

// A tiny synthetic bilingual problem: rows 0..19 are words of one language, rows 20..39 their
// translations; a sentence is three random words and its translation the translated words in reverse
// order. Training from a random table lowers the held-out loss and aligns each word with its
// translation (its nearest row of the other language).
TEST(TrainerRefine, ContrastiveLearningAlignsTranslations) {
  util::Progress::SetEnabled(false);
  const uint32_t words = 20, d = 8, n = 600;
  std::mt19937 rng(9);
  std::normal_distribution<float> g;
  std::uniform_int_distribution<uint32_t> pick(0, words - 1);
  PairData data;
  for (uint32_t i = 0; i < n; ++i) {
    std::vector<uint32_t> s = {pick(rng), pick(rng), pick(rng)}, t;
    for (auto it = s.rbegin(); it != s.rend(); ++it) t.push_back(*it + words);
    data.source.push_back(s);
    data.target.push_back(t);
  }
  Matrix table;
  table.rows = 2 * words;
  table.cols = d;
  for (uint32_t i = 0; i < table.rows * d; ++i) table.data.push_back(g(rng));
  const Matrix initial = table;
  auto aligned = [&](const Matrix& m) {
    int hits = 0;
    for (uint32_t w = 0; w < words; ++w) {
      uint32_t best = 0;
      double best_cos = -2;
      for (uint32_t v = words; v < 2 * words; ++v) {
        double dot = 0, nw = 0, nv = 0;
        for (uint32_t k = 0; k < d; ++k) {
          dot += double(m.row(w)[k]) * m.row(v)[k];
          nw += double(m.row(w)[k]) * m.row(w)[k];
          nv += double(m.row(v)[k]) * m.row(v)[k];
        }
        if (dot / std::sqrt(nw * nv) > best_cos) best_cos = dot / std::sqrt(nw * nv), best = v;
      }
      hits += best == w + words;
    }
    return hits;
  };
  RefineOptions o;
  o.batch_size = 32;
  o.lr = 0.05;
  o.max_epochs = 15;
  o.patience = 3;
  o.tau = 0.1;
  RefineReport report;
  ASSERT_TRUE(RefineContrastive(data, o, &table, &report).ok());
  std::printf("  held-out loss %.4f -> %.4f (epoch %u); aligned words %d -> %d of %u\n", report.initial_heldout,
              report.best_heldout, report.best_epoch, aligned(initial), aligned(table), words);
  EXPECT_EQ(report.heldout_sentences, 60u);
  EXPECT_EQ(report.train_sentences, 540u);
  EXPECT_LT(report.best_heldout, 0.5 * report.initial_heldout);
  EXPECT_GE(report.best_epoch, 1u);
  EXPECT_GE(aligned(table), 18);
  // Deterministic for a seed.
  Matrix again = initial;
  RefineReport report2;
  ASSERT_TRUE(RefineContrastive(data, o, &again, &report2).ok());
  EXPECT_EQ(again.data, table.data);
  EXPECT_EQ(report2.heldout_loss, report.heldout_loss);
  PairData bad = data;
  bad.target[3] = {};
  EXPECT_EQ(RefineContrastive(bad, o, &again, &report).code(), StatusCode::kInvalidArgument);
  bad = data;
  bad.target.pop_back();
  EXPECT_EQ(RefineContrastive(bad, o, &again, &report).code(), StatusCode::kInvalidArgument);
  bad = data;
  bad.source[0] = {2 * words};
  EXPECT_EQ(RefineContrastive(bad, o, &again, &report).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace swe::trainer

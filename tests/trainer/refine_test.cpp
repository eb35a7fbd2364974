#include "refine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "progress.h"

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
  Progress::SetEnabled(false);
  const uint32_t rows = 40, d = 8, n = 600;
  std::mt19937 rng(5);
  std::normal_distribution<float> g;
  std::vector<float> target(rows * d);
  for (float& v : target) v = g(rng);
  RefineData data;
  data.teacher.cols = d;
  std::uniform_int_distribution<uint32_t> pick(0, rows - 1);
  for (uint32_t i = 0; i < n; ++i) {
    std::vector<uint32_t> s = {pick(rng), pick(rng), pick(rng)};
    std::vector<float> mean(d, 0.0f);
    for (uint32_t r : s) for (uint32_t k = 0; k < d; ++k) mean[k] += target[r * d + k] / 3;
    data.sentences.push_back(s);
    data.teacher.data.insert(data.teacher.data.end(), mean.begin(), mean.end());
    ++data.teacher.rows;
  }
  Matrix table;
  table.rows = rows;
  table.cols = d;
  for (uint32_t i = 0; i < rows * d; ++i) table.data.push_back(g(rng));
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

}  // namespace
}  // namespace swe::trainer

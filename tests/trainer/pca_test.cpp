#include "refine/pca.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace swe::trainer {
namespace {

// A random orthogonal d x d matrix (rows are the directions), by Gram-Schmidt.
std::vector<std::vector<double>> RandomOrthogonal(int d, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n;
  std::vector<std::vector<double>> q(d, std::vector<double>(d));
  for (int i = 0; i < d; ++i) {
    for (double& x : q[i]) x = n(rng);
    for (int j = 0; j < i; ++j) {
      double dot = 0;
      for (int k = 0; k < d; ++k) dot += q[i][k] * q[j][k];
      for (int k = 0; k < d; ++k) q[i][k] -= dot * q[j][k];
    }
    double norm = 0;
    for (double x : q[i]) norm += x * x;
    for (double& x : q[i]) x /= std::sqrt(norm);
  }
  return q;
}

// Points mu ± a_j q_j (j = 0..d-1): mean mu, covariance sum_j (2 a_j^2 / n) q_j q_jᵀ with n = 2d.
TEST(TrainerPca, RecoversAKnownDecompositionAndDropsTheTop) {
  const int d = 5;
  auto q = RandomOrthogonal(d, 3);
  std::vector<double> a = {5, 4, 3, 2, 1}, mu = {1, -2, 0.5, 3, 0};
  Matrix x;
  x.cols = d;
  for (int j = 0; j < d; ++j) {
    for (int sign : {1, -1}) {
      for (int k = 0; k < d; ++k) x.data.push_back(static_cast<float>(mu[k] + sign * a[j] * q[j][k]));
      ++x.rows;
    }
  }
  PcaOptions o;
  o.remove = 1;
  o.out_dims = 2;
  PcaResult r;
  ASSERT_TRUE(FitPca(x, o, &r).ok());
  EXPECT_EQ(r.removed, 1u);
  EXPECT_EQ(r.out_dims, 2u);
  for (int k = 0; k < d; ++k) EXPECT_NEAR(r.mean[k], mu[k], 1e-5);
  const double n = 2 * d;
  ASSERT_EQ(r.removed_variances.size(), 1u);
  EXPECT_NEAR(r.removed_variances[0], 2 * a[0] * a[0] / n, 1e-4);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(r.variances[i], 2 * a[i + 1] * a[i + 1] / n, 1e-4);
    double dot = 0;
    for (int k = 0; k < d; ++k) dot += r.components.row(i)[k] * q[i + 1][k];
    EXPECT_NEAR(std::fabs(dot), 1.0, 1e-5) << "component " << i;
  }
  // Ê = Wᵀ(E − X̄): the point mu + 2 q_1 + 7 q_4 maps to (±2, 0).
  Matrix e;
  e.rows = 1;
  e.cols = d;
  for (int k = 0; k < d; ++k) e.data.push_back(static_cast<float>(mu[k] + 2 * q[1][k] + 7 * q[4][k]));
  Matrix out;
  ASSERT_TRUE(ApplyPca(r, e, &out).ok());
  ASSERT_EQ(out.cols, 2u);
  EXPECT_NEAR(std::fabs(out.data[0]), 2.0, 1e-4);
  EXPECT_NEAR(out.data[1], 0.0, 1e-4);
}

TEST(TrainerPca, DefaultRemovesFloorDOver100AndClampsDims) {
  const int d = 250, n = 400;
  std::mt19937 rng(1);
  std::normal_distribution<float> g;
  Matrix x;
  x.rows = n;
  x.cols = d;
  for (int i = 0; i < n * d; ++i) x.data.push_back(g(rng));
  PcaOptions o;  // remove = -1 -> floor(250 / 100) = 2
  o.out_dims = 1000;
  PcaResult r;
  ASSERT_TRUE(FitPca(x, o, &r).ok());
  EXPECT_EQ(r.removed, 2u);
  EXPECT_EQ(r.out_dims, 248u);
  for (size_t i = 1; i < r.variances.size(); ++i) EXPECT_GE(r.variances[i - 1], r.variances[i]);
  o.remove = 0;
  ASSERT_TRUE(FitPca(x, o, &r).ok());
  EXPECT_EQ(r.removed, 0u);
  Matrix one;
  one.rows = 1;
  one.cols = d;
  one.data.assign(d, 0.0f);
  EXPECT_EQ(FitPca(one, o, &r).code(), StatusCode::kInvalidArgument);
}

// Weights count rows: weights 3, 1, 2, ... give the mean, directions and variances of the matrix with
// each row repeated that often; weights of 0 leave a row out; invalid weights are refused.
TEST(TrainerPca, WeightsCountRowsAsRepeats) {
  const int d = 6, n = 30;
  std::mt19937 rng(3);
  std::normal_distribution<float> g;
  Matrix x, repeated;
  x.rows = n;
  x.cols = repeated.cols = d;
  std::vector<double> weights;
  for (int i = 0; i < n; ++i) {
    std::vector<float> row;
    for (int k = 0; k < d; ++k) row.push_back((k + 1) * g(rng));
    x.data.insert(x.data.end(), row.begin(), row.end());
    weights.push_back(i % 4);
    for (int c = 0; c < i % 4; ++c) repeated.data.insert(repeated.data.end(), row.begin(), row.end());
  }
  repeated.rows = repeated.data.size() / d;
  PcaOptions o;
  o.out_dims = 3;
  o.remove = 0;
  PcaResult weighted, plain;
  ASSERT_TRUE(FitPca(x, o, &weighted, &weights).ok());
  ASSERT_TRUE(FitPca(repeated, o, &plain).ok());
  for (int k = 0; k < d; ++k) EXPECT_NEAR(weighted.mean[k], plain.mean[k], 1e-5);
  for (int j = 0; j < 3; ++j) {
    EXPECT_NEAR(weighted.variances[j], plain.variances[j], 1e-9 * plain.variances[j] + 1e-9);
    for (int k = 0; k < d; ++k) EXPECT_NEAR(weighted.components.row(j)[k], plain.components.row(j)[k], 1e-5);
  }
  for (std::vector<double> bad : {std::vector<double>(n, 0.0), std::vector<double>(n - 1, 1.0),
                                  std::vector<double>(n, -1.0), std::vector<double>(n, NAN)}) {
    EXPECT_EQ(FitPca(x, o, &weighted, &bad).code(), StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace swe::trainer

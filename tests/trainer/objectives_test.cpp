// The refinement objectives (objectives.h): loss values against hand-computed ones, and small
// synthetic problems each objective solves, alone and combined with KD in one run.
#include "refine/objectives.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "swe/util/progress.h"
#include "test_util.h"

namespace swe::trainer {
namespace {

TEST(TrainerObjectives, ContrastiveLossWithHardNegativesMatchesHandComputedValues) {
  // Anchors e1, e2; positives e1, e2; hard negatives e1, e3 (d = 3). With E = e^{−1/τ}:
  //   a1: candidates p1 (cos 1), p2 (0), n1 (1), n2 (0) -> log(2 + 2E)
  //   a2: p1 (0), p2 (1), n1 (0), n2 (0)              -> log(1 + 3E)
  //   reverse (p_i over the anchors, no negatives): log(1 + E) each.
  const float a[] = {1, 0, 0, 0, 1, 0}, p[] = {2, 0, 0, 0, 3, 0}, n[] = {1, 0, 0, 0, 0, 4};
  for (double tau : {1.0, 0.5, 0.05}) {
    const double e = std::exp(-1 / tau);
    const double forward = 0.5 * (std::log(2 + 2 * e) + std::log(1 + 3 * e));
    EXPECT_NEAR(SupervisedContrastiveLoss(a, p, n, 2, 3, tau, false), forward, 1e-9) << tau;
    EXPECT_NEAR(SupervisedContrastiveLoss(a, p, n, 2, 3, tau, true), 0.5 * (forward + std::log(1 + e)), 1e-9) << tau;
    // Without hard negatives and symmetric: the translation-pair loss of refine.h.
    EXPECT_NEAR(SupervisedContrastiveLoss(a, p, nullptr, 2, 3, tau, true), ContrastiveLoss(a, p, 2, 3, tau), 1e-12);
    EXPECT_NEAR(SupervisedContrastiveLoss(a, p, nullptr, 2, 3, tau, false), std::log(1 + e), 1e-9);
  }
}

TEST(TrainerObjectives, DistanceLossMatchesHandComputedValues) {
  // W keeps the first two of three teacher dims. t1 W = (1, 0) vs s1 = (2, 0): squared 1, cos 1;
  // t2 W = (0, 1) vs s2 = (1, 0): squared 2, cos 0. Means: squared 1.5, 1 − cos 0.5.
  const float t[] = {1, 0, 5, 0, 1, 0}, s[] = {2, 0, 1, 0}, w[] = {1, 0, 0, 1, 0, 0};
  EXPECT_NEAR(DistanceLoss(t, s, w, 2, 3, 2, 1, 1), 2.0, 1e-12);
  EXPECT_NEAR(DistanceLoss(t, s, w, 2, 3, 2, 0.5, 2), 1.75, 1e-12);
  EXPECT_NEAR(DistanceLoss(t, s, w, 2, 3, 2, 0, 1), 0.5, 1e-12);
}

TEST(TrainerObjectives, MatryoshkaAddsEachPrefixLossWeighted) {
  // Contrastive, d = 2, prefix 1: a1 = p1 = (1, 1), a2 = p2 = (1, −1). All dims: each anchor has its
  // positive at cos 1 and the other at 0 -> log(1 + E). First dim: every cosine is 1 -> log 2.
  const float a[] = {1, 1, 1, -1};
  for (double tau : {1.0, 0.1}) {
    const double whole = std::log(1 + std::exp(-1 / tau));
    for (bool symmetric : {false, true}) {
      EXPECT_NEAR(SupervisedContrastiveLoss(a, a, nullptr, 2, 2, tau, symmetric, {{1, 0.5}}),
                  whole + 0.5 * std::log(2.0), 1e-9);
      EXPECT_NEAR(SupervisedContrastiveLoss(a, a, nullptr, 2, 2, tau, symmetric, {{1, 1}, {1, 2}}),
                  whole + 3 * std::log(2.0), 1e-9);
      EXPECT_NEAR(SupervisedContrastiveLoss(a, a, nullptr, 2, 2, tau, symmetric, {{1, 0}}), whole, 1e-9);
    }
  }
  // Distance (the test above, 2.0 on all dims): on the first dim t W = (1), (0) vs s = (2), (1):
  // squared 1 and 1, 1 − cos 0 and 1 (a zero vector normalises to zero) -> 1 + 0.5.
  const float t[] = {1, 0, 5, 0, 1, 0}, s[] = {2, 0, 1, 0}, w[] = {1, 0, 0, 1, 0, 0};
  EXPECT_NEAR(DistanceLoss(t, s, w, 2, 3, 2, 1, 1, {{1, 0.5}}), 2.0 + 0.5 * 1.5, 1e-12);
}

// A random dt x ds matrix with orthonormal columns (Gram-Schmidt).
std::vector<float> RandomOrthonormal(uint32_t dt, uint32_t ds, std::mt19937& rng) {
  std::normal_distribution<double> g;
  std::vector<double> q(dt * ds);
  for (uint32_t c = 0; c < ds; ++c) {
    std::vector<double> v(dt);
    for (double& x : v) x = g(rng);
    for (uint32_t b = 0; b < c; ++b) {
      double dot = 0;
      for (uint32_t r = 0; r < dt; ++r) dot += v[r] * q[r * ds + b];
      for (uint32_t r = 0; r < dt; ++r) v[r] -= dot * q[r * ds + b];
    }
    double norm = 0;
    for (double x : v) norm += x * x;
    for (uint32_t r = 0; r < dt; ++r) q[r * ds + c] = v[r] / std::sqrt(norm);
  }
  return std::vector<float>(q.begin(), q.end());
}

// The teacher of a synthetic KD problem (d dims) embedded in dt > d dims by t Qᵀ, Q orthonormal.
Matrix EmbedTeacher(const Matrix& teacher, uint32_t dt, const std::vector<float>& q) {
  Matrix out;
  out.rows = teacher.rows;
  out.cols = dt;
  out.data.assign(out.rows * dt, 0.0f);
  for (uint64_t i = 0; i < teacher.rows; ++i) {
    for (uint32_t r = 0; r < dt; ++r) {
      for (uint64_t c = 0; c < teacher.cols; ++c) out.row(i)[r] += teacher.row(i)[c] * q[r * teacher.cols + c];
    }
  }
  return out;
}

// S = T Q for an orthogonal Q: Procrustes finds Q exactly (square maps). For dt > ds the polar factor
// of TᵀS is the initialisation (exact only for an isotropic T): its columns are orthonormal.
TEST(TrainerObjectives, ProcrustesRecoversAnOrthogonalMap) {
  std::mt19937 rng(4);
  std::normal_distribution<float> g;
  for (uint32_t dt : {5u, 7u}) {
    const uint32_t n = 200, ds = 5;
    Matrix t;
    t.rows = n;
    t.cols = dt;
    for (uint32_t i = 0; i < n * dt; ++i) t.data.push_back(g(rng));
    const std::vector<float> q = RandomOrthonormal(dt, ds, rng);
    Matrix s;
    s.rows = n;
    s.cols = ds;
    s.data.assign(n * ds, 0.0f);
    for (uint32_t i = 0; i < n; ++i) {
      for (uint32_t c = 0; c < ds; ++c) {
        for (uint32_t r = 0; r < dt; ++r) s.row(i)[c] += t.row(i)[r] * q[r * ds + c];
      }
    }
    Matrix w;
    ASSERT_TRUE(ProcrustesMap(t, s, &w).ok());
    ASSERT_EQ(w.rows, dt);
    ASSERT_EQ(w.cols, ds);
    for (uint32_t a = 0; a < ds; ++a) {
      for (uint32_t b = 0; b < ds; ++b) {
        double dot = 0;
        for (uint32_t r = 0; r < dt; ++r) dot += double(w.data[r * ds + a]) * w.data[r * ds + b];
        EXPECT_NEAR(dot, a == b ? 1.0 : 0.0, 1e-5) << dt;
      }
    }
    if (dt == ds) {
      for (uint32_t i = 0; i < dt * ds; ++i) EXPECT_NEAR(w.data[i], q[i], 1e-4) << i;
    }
    Matrix bad = s;
    bad.rows = 3;
    EXPECT_EQ(ProcrustesMap(t, bad, &w).code(), StatusCode::kInvalidArgument);
  }
}

// Topic triples: 8 topics of 5 words each; anchor and positive are 3 words of one topic, the hard
// negative 3 words of another. A random table learns to put a topic's words together.
TupleData TopicTriples(uint32_t n, std::mt19937& rng) {
  std::uniform_int_distribution<uint32_t> topic(0, 7), word(0, 4);
  TupleData data;
  auto sentence = [&](uint32_t t) {
    return std::vector<uint32_t>{t * 5 + word(rng), t * 5 + word(rng), t * 5 + word(rng)};
  };
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t t = topic(rng), other = (t + 1 + topic(rng) % 7) % 8;
    data.anchor.push_back(sentence(t));
    data.positive.push_back(sentence(t));
    data.negative.push_back(sentence(other));
  }
  return data;
}

// Fraction of triples whose anchor is closer to its positive than to its negative.
double TripleAccuracy(const Matrix& table, const TupleData& data) {
  auto mean = [&](const std::vector<uint32_t>& rows) {
    std::vector<float> m(table.cols, 0.0f);
    for (uint32_t r : rows) for (uint64_t k = 0; k < table.cols; ++k) m[k] += table.row(r)[k];
    return m;
  };
  int right = 0;
  for (size_t i = 0; i < data.anchor.size(); ++i) {
    auto a = mean(data.anchor[i]), p = mean(data.positive[i]), n = mean(data.negative[i]);
    right += testing::Cosine(a.data(), p.data(), a.size()) > testing::Cosine(a.data(), n.data(), a.size());
  }
  return static_cast<double>(right) / static_cast<double>(data.anchor.size());
}

RefineOptions SmallOptions() {
  RefineOptions o;
  o.batch_size = 32;
  o.lr = 0.05;
  o.max_epochs = 15;
  o.patience = 3;
  return o;
}

// 600 topic triples to train on, 300 unseen ones, a random 40 x 8 table and a contrastive objective
// (tau 0.1) over the training triples: the task the tests below train on.
struct TopicTask {
  std::mt19937 rng{12};
  TupleData data, fresh;
  Matrix table;
  Objective objective;
  TopicTask() {
    util::Progress::SetEnabled(false);
    data = TopicTriples(600, rng);
    fresh = TopicTriples(300, rng);
    std::normal_distribution<float> g;
    table.rows = 40;
    table.cols = 8;
    for (int i = 0; i < 40 * 8; ++i) table.data.push_back(g(rng));
    objective.spec.kind = ObjectiveKind::kContrastive;
    objective.spec.tau = 0.1;
    objective.tuples = &data;
  }
  TopicTask(const TopicTask&) = delete;  // objective points at data
  TopicTask& operator=(const TopicTask&) = delete;
};

TEST(TrainerObjectives, ContrastiveTriplesSeparateTopics) {
  TopicTask t;
  const TupleData& data = t.data;
  Matrix& table = t.table;
  Objective& o = t.objective;
  const double before = TripleAccuracy(table, t.fresh);
  RefineReport report;
  ASSERT_TRUE(RefineObjectives({o}, SmallOptions(), &table, &report).ok());
  const double after = TripleAccuracy(table, t.fresh);
  std::printf("  held-out loss %.4f -> %.4f; unseen triples right %.2f -> %.2f\n", report.initial_heldout,
              report.best_heldout, before, after);
  EXPECT_LT(report.best_heldout, 0.7 * report.initial_heldout);
  EXPECT_GE(after, 0.95);
  TupleData bad = data;
  bad.negative.pop_back();
  o.tuples = &bad;
  EXPECT_EQ(RefineObjectives({o}, SmallOptions(), &table, &report).code(), StatusCode::kInvalidArgument);
  bad = data;
  bad.positive[2] = {40};
  EXPECT_EQ(RefineObjectives({o}, SmallOptions(), &table, &report).code(), StatusCode::kInvalidArgument);
}

// The contrastive loss (τ 0.1, symmetric, hard negatives) of `data` on the first `dims` columns of
// its mean vectors.
double LossOnFirstDims(const Matrix& table, const TupleData& data, uint32_t dims) {
  auto means = [&](const std::vector<std::vector<uint32_t>>& side) {
    std::vector<float> m(side.size() * dims, 0.0f);
    for (size_t i = 0; i < side.size(); ++i) {
      for (uint32_t r : side[i]) for (uint32_t k = 0; k < dims; ++k) m[i * dims + k] += table.row(r)[k];
    }
    return m;
  };
  const auto a = means(data.anchor), p = means(data.positive), n = means(data.negative);
  return SupervisedContrastiveLoss(a.data(), p.data(), n.data(), static_cast<uint32_t>(data.anchor.size()), dims, 0.1,
                                   true);
}

// The triples above with the loss on the first 2 of 8 dims too: on unseen triples the 2-dim prefix
// then has a clearly lower loss (by 0.48 here) than after the same training without it, and all 8 dims lose little.
TEST(TrainerObjectives, MatryoshkaKeepsAPrefixUseful) {
  TopicTask t;
  const TupleData& fresh = t.fresh;
  const Matrix& initial = t.table;
  Objective& o = t.objective;
  RefineReport report;
  Matrix plain = initial, nested = initial;
  ASSERT_TRUE(RefineObjectives({o}, SmallOptions(), &plain, &report).ok());
  o.spec.matryoshka = {{2, 1}};
  ASSERT_TRUE(RefineObjectives({o}, SmallOptions(), &nested, &report).ok());
  const double plain2 = LossOnFirstDims(plain, fresh, 2), nested2 = LossOnFirstDims(nested, fresh, 2);
  const double plain8 = LossOnFirstDims(plain, fresh, 8), nested8 = LossOnFirstDims(nested, fresh, 8);
  std::printf("  unseen triples' loss on 2 of 8 dims: %.4f without, %.4f with Matryoshka (all 8: %.4f, %.4f)\n",
              plain2, nested2, plain8, nested8);
  EXPECT_LT(nested2, plain2 - 0.3);
  EXPECT_LT(nested8, 1.2 * plain8);
  for (uint32_t bad : {0u, 8u, 9u}) {
    o.spec.matryoshka = {{bad, 1}};
    Status s = RefineObjectives({o}, SmallOptions(), &nested, &report);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("matryoshka dims must be in 1..7"), std::string::npos) << s.message();
  }
}

// Learned word weights: a scale per row trained with the table and folded into it at the end. The
// folded table, scored without scales on the same held-out split (same seed, no epoch), has exactly
// the best held-out loss the run reported: the scales of the best epoch are the ones folded in.
TEST(TrainerObjectives, WordWeightsAreFoldedIntoTheRows) {
  TopicTask t;
  const TupleData& fresh = t.fresh;
  const Matrix& initial = t.table;
  Objective& o = t.objective;
  RefineOptions options = SmallOptions();
  options.lr = 0.2;  // over-shoots after a few epochs: the best epoch is not the last
  for (bool lazy : {false, true}) {
    options.lazy_adam = lazy;
    options.word_weights = true;
    Matrix weighted = initial, plain = initial;
    RefineReport report, again;
    ASSERT_TRUE(RefineObjectives({o}, options, &weighted, &report).ok());
    options.word_weights = false;
    ASSERT_TRUE(RefineObjectives({o}, options, &plain, &again).ok());
    EXPECT_NE(weighted.data, plain.data);
    EXPECT_LT(report.best_heldout, 0.7 * report.initial_heldout);
    EXPECT_GE(TripleAccuracy(weighted, fresh), 0.95);
    RefineOptions score = options;
    score.max_epochs = 0;
    Matrix folded = weighted;
    ASSERT_TRUE(RefineObjectives({o}, score, &folded, &again).ok());
    std::printf("  lazy %d: held-out loss %.5f (best epoch %u of %zu); the folded table without scales %.5f\n", lazy,
                report.best_heldout, report.best_epoch, report.heldout_loss.size(), again.initial_heldout);
    EXPECT_LT(report.best_epoch, report.heldout_loss.size());
    EXPECT_NEAR(again.initial_heldout, report.best_heldout, 1e-4);
    EXPECT_EQ(folded.data, weighted.data);
  }
  options.word_weights = true;
  options.frozen_rows = 5;
  Matrix table = initial;
  RefineReport report;
  Status s = RefineObjectives({o}, options, &table, &report);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("not with frozen rows"), std::string::npos) << s.message();
}

// KD and contrastive in one run on one table: both held-out losses fall, and the weighted total is
// the sum of the weighted parts.
TEST(TrainerObjectives, KdAndContrastiveCombineInOneRun) {
  util::Progress::SetEnabled(false);
  std::mt19937 rng(21);
  Matrix table;
  const RefineData kd = testing::SyntheticKdProblem(40, 8, 600, rng, &table);
  const TupleData triples = TopicTriples(600, rng);
  Objective a, b;
  a.spec.tau = 0.1;
  a.sentences = &kd;
  b.spec.kind = ObjectiveKind::kContrastive;
  b.spec.tau = 0.1;
  b.spec.weight = 0.5;
  b.tuples = &triples;
  const Matrix initial = table;
  RefineReport report;
  ASSERT_TRUE(RefineObjectives({a, b}, SmallOptions(), &table, &report).ok());
  ASSERT_EQ(report.best_parts.size(), 2u);
  std::printf("  kd %.4f -> %.4f, contrastive %.4f -> %.4f\n", report.initial_parts[0], report.best_parts[0],
              report.initial_parts[1], report.best_parts[1]);
  EXPECT_NEAR(report.initial_heldout, report.initial_parts[0] + 0.5 * report.initial_parts[1], 1e-9);
  EXPECT_NEAR(report.best_heldout, report.best_parts[0] + 0.5 * report.best_parts[1], 1e-9);
  EXPECT_LT(report.best_parts[0], 0.7 * report.initial_parts[0]);
  EXPECT_LT(report.best_parts[1], 0.9 * report.initial_parts[1]);
  // Deterministic for a seed.
  Matrix again = initial;
  RefineReport report2;
  ASSERT_TRUE(RefineObjectives({a, b}, SmallOptions(), &again, &report2).ok());
  EXPECT_EQ(again.data, table.data);
  EXPECT_TRUE(RefineObjectives({}, SmallOptions(), &again, &report2).code() == StatusCode::kInvalidArgument);
}

// Distance minimisation with dims that differ: the teacher lives in 12 dims (an orthogonal
// embedding of an 8-dim problem), the student in 8. The orthogonal map and the table are learned.
TEST(TrainerObjectives, DistanceMinimisationMatchesATeacherOfOtherDims) {
  util::Progress::SetEnabled(false);
  std::mt19937 rng(33);
  Matrix table;
  RefineData data = testing::SyntheticKdProblem(40, 8, 600, rng, &table);
  data.teacher = EmbedTeacher(data.teacher, 12, RandomOrthonormal(12, 8, rng));
  Objective o;
  o.spec.kind = ObjectiveKind::kDistance;
  o.sentences = &data;
  RefineOptions options = SmallOptions();
  options.max_epochs = 30;
  RefineReport report;
  ASSERT_TRUE(RefineObjectives({o}, options, &table, &report).ok());
  std::printf("  held-out distance loss %.4f -> %.4f (epoch %u)\n", report.initial_heldout, report.best_heldout,
              report.best_epoch);
  EXPECT_LT(report.best_heldout, 0.1 * report.initial_heldout);
  // The identity map needs equal dims.
  o.spec.orthogonal_map = false;
  Status s = RefineObjectives({o}, options, &table, &report);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("map 'identity'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace swe::trainer

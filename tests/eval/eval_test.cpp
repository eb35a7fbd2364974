// The evaluation library (eval/): metrics against hand-computed values, every dataset reader on
// the real files under ../shared/data/eval, logistic regression and its protocols, retrieval.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "swe/eval/datasets.h"
#include "swe/eval/logreg.h"
#include "swe/eval/metrics.h"
#include "swe/eval/report.h"
#include "swe/eval/retrieval.h"
#include "swe/eval/suite.h"
#include "test_paths.h"

namespace swe::eval {
namespace {

const std::string kData = std::string(swe::test::SharedData()) + "/eval/";

TEST(Metrics, AverageRanksShareTies) {
  EXPECT_EQ(AverageRanks({3, 1, 3, 3, 2}), (std::vector<double>{4, 1, 4, 4, 2}));
  EXPECT_EQ(AverageRanks({}), std::vector<double>{});
  EXPECT_EQ(AverageRanks({7, 7}), (std::vector<double>{1.5, 1.5}));
}

TEST(Metrics, PearsonByHand) {
  // dx = -2 -1 0 1 2, dy = -2 0 1 0 1: sxy = 6, sxx = 10, syy = 6.
  EXPECT_NEAR(Pearson({1, 2, 3, 4, 5}, {2, 4, 5, 4, 5}), 6 / std::sqrt(60.0), 1e-12);
  EXPECT_NEAR(Pearson({1, 2, 3}, {-2, -4, -6}), -1, 1e-12);
  EXPECT_EQ(Pearson({1, 1, 1}, {1, 2, 3}), 0);  // constant input: 0, not NaN
  EXPECT_EQ(Pearson({1}, {2}), 0);
}

TEST(Metrics, SpearmanWithTies) {
  // Ranks (1, 2.5, 2.5, 4) vs (1, 3, 2, 4): 4.5 / sqrt(4.5 * 5) (scipy.stats.spearmanr: 0.9486832980505138).
  EXPECT_NEAR(Spearman({1, 2, 2, 3}, {1, 3, 2, 4}), 0.9486832980505138, 1e-12);
  EXPECT_NEAR(Spearman({1, 2, 3, 4}, {10, 20, 30, 1000}), 1, 1e-12);  // monotone, not linear
  EXPECT_NEAR(Spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1, 1e-12);
}

TEST(Datasets, SemEvalYearsPoolScoredPairs) {
  const size_t expected[] = {3108, 1500, 3750, 3000};
  const size_t subsets[] = {5, 3, 6, 5};
  for (int year = 12; year <= 15; ++year) {
    std::vector<StsSet> sets;
    Status s = ReadSemEvalYear(kData + "sts/STS" + std::to_string(year), 0, &sets);
    ASSERT_TRUE(s.ok()) << s.ToString();
    size_t n = 0;
    for (const StsSet& set : sets) n += set.pairs.size();
    EXPECT_EQ(n, expected[year - 12]) << year;
    EXPECT_EQ(sets.size(), subsets[year - 12]) << year;
  }
  // STS15 answers-forums: 2000 lines, 375 scored; the first scored pair is line 7.
  StsSet forums;
  ASSERT_TRUE(ReadSemEvalSubset(kData + "sts/STS15/STS.input.answers-forums.txt",
                                kData + "sts/STS15/STS.gs.answers-forums.txt", 0, &forums).ok());
  EXPECT_EQ(forums.pairs.size(), 375u);
  StsSet limited;
  ASSERT_TRUE(ReadSemEvalSubset(kData + "sts/STS12/STS.input.MSRpar.txt", kData + "sts/STS12/STS.gs.MSRpar.txt", 2,
                                &limited).ok());
  ASSERT_EQ(limited.pairs.size(), 2u);
  EXPECT_EQ(limited.pairs[0].score, 4.4);
  EXPECT_EQ(limited.pairs[1].score, 0.8);
  EXPECT_EQ(limited.pairs[0].a.rfind("The problem likely will mean corrective changes", 0), 0u);
}

TEST(Datasets, Sts17Tracks) {
  std::vector<StsSet> tracks;
  ASSERT_TRUE(ReadSemEvalYear(kData + "sts/STS17", 0, &tracks).ok());
  ASSERT_EQ(tracks.size(), 3u);
  for (const StsSet& t : tracks) EXPECT_EQ(t.pairs.size(), 250u) << t.name;
  EXPECT_EQ(tracks[2].name, "track5.en-en");
}

TEST(Datasets, StsBenchmarkAndSick) {
  StsSet dev, train, sick_train, sick_trial;
  ASSERT_TRUE(ReadStsbCsv(kData + "sts/stsbenchmark/sts-dev.csv", 0, &dev).ok());
  ASSERT_TRUE(ReadStsbCsv(kData + "sts/stsbenchmark/sts-train.csv", 0, &train).ok());
  EXPECT_EQ(dev.pairs.size(), 1500u);
  EXPECT_EQ(train.pairs.size(), 5749u);
  EXPECT_EQ(dev.pairs[0].score, 5.0);
  EXPECT_EQ(dev.pairs[0].a, "A man with a hard hat is dancing.");
  EXPECT_EQ(dev.pairs[0].b, "A man wearing a hard hat is dancing.");
  for (const StsPair& p : train.pairs) ASSERT_TRUE(p.score >= 0 && p.score <= 5) << p.a;
  ASSERT_TRUE(ReadSick(kData + "sts/sick2014/SICK_train.txt", 0, &sick_train).ok());
  ASSERT_TRUE(ReadSick(kData + "sts/sick2014/SICK_trial.txt", 0, &sick_trial).ok());
  EXPECT_EQ(sick_train.pairs.size(), 4500u);
  EXPECT_EQ(sick_trial.pairs.size(), 500u);
  EXPECT_EQ(sick_trial.pairs[0].score, 3.6);
  EXPECT_EQ(sick_trial.pairs[0].a, "The young boys are playing outdoors and the man is smiling nearby");
}

TEST(Datasets, TatoebaAndClassification) {
  std::vector<std::string> deu, eng;
  ASSERT_TRUE(ReadParallel(kData + "retrieval/tatoeba/tatoeba.deu-eng.deu", kData + "retrieval/tatoeba/tatoeba.deu-eng.eng",
                           0, &deu, &eng).ok());
  EXPECT_EQ(deu.size(), 1000u);
  EXPECT_EQ(eng[0], "Mary said she didn't know where Tom was.");
  LabeledSet set;
  const std::string c = kData + "classification/";
  const std::pair<const char*, size_t> sst2[] = {{"train", 67349}, {"dev", 872}, {"test", 1821}};
  for (const auto& [split, n] : sst2) {
    ASSERT_TRUE(ReadSstBinary(c + "SST/binary/sentiment-" + split, 0, &set).ok());
    EXPECT_EQ(set.texts.size(), n) << split;
  }
  EXPECT_EQ(set.texts[0], "uneasy mishmash of styles and genres .");
  EXPECT_EQ(set.labels[0], 0);
  const std::pair<const char*, size_t> sst5[] = {{"train", 8544}, {"dev", 1101}, {"test", 2210}};
  for (const auto& [split, n] : sst5) {
    ASSERT_TRUE(ReadSstFine(c + "SST/fine/sentiment-" + split, 0, &set).ok());
    EXPECT_EQ(set.texts.size(), n) << split;
  }
  EXPECT_EQ(set.labels[0], 1);
  ASSERT_TRUE(ReadTwoFiles(c + "SUBJ/subj.subjective", c + "SUBJ/subj.objective", "subjective", "objective", 0, &set).ok());
  EXPECT_EQ(set.texts.size(), 10000u);
  EXPECT_EQ(std::count(set.labels.begin(), set.labels.end(), 1), 5000);
  ASSERT_TRUE(ReadTwoFiles(c + "MPQA/mpqa.pos", c + "MPQA/mpqa.neg", "positive", "negative", 0, &set).ok());
  EXPECT_EQ(set.texts.size(), 10606u);  // SentEval's count: the three empty lines are examples too
  EXPECT_EQ(std::count(set.labels.begin(), set.labels.end(), 1), 3312);
  LabeledSet train, test;
  ASSERT_TRUE(ReadTrec(c + "TREC/train_5500.label", 0, {}, &train).ok());
  ASSERT_TRUE(ReadTrec(c + "TREC/TREC_10.label", 0, train.classes, &test).ok());
  EXPECT_EQ(train.texts.size(), 5452u);
  EXPECT_EQ(test.texts.size(), 500u);
  EXPECT_EQ(train.classes, (std::vector<std::string>{"ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"}));
  EXPECT_EQ(test.texts[0], "How far is it from Denver to Aspen ?");
  EXPECT_EQ(train.classes[test.labels[0]], "NUM");
  for (const std::string& t : train.texts) {  // ISO-8859-1 converted: valid UTF-8 throughout
    for (size_t i = 0; i < t.size(); ++i) {
      const auto b = static_cast<uint8_t>(t[i]);
      if (b >= 0x80) ASSERT_TRUE((b == 0xC2 || b == 0xC3) && i + 1 < t.size()) << t;
      if (b >= 0x80) ++i;
    }
  }
}

TEST(Datasets, Errors) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("swe_eval_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "in.txt") << "a\tb\nc\td\n";
  std::ofstream(dir / "gs.txt") << "1\n";
  std::ofstream(dir / "gs2.txt") << "1\nfive\n";
  StsSet set;
  Status s = ReadSemEvalSubset((dir / "in.txt").string(), (dir / "gs.txt").string(), 0, &set);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt);
  EXPECT_NE(s.message().find("1 lines"), std::string::npos) << s.ToString();
  s = ReadSemEvalSubset((dir / "in.txt").string(), (dir / "gs2.txt").string(), 0, &set);
  EXPECT_NE(s.message().find("gs2.txt:2: bad score 'five'"), std::string::npos) << s.ToString();
  EXPECT_EQ(ReadStsbCsv((dir / "missing.csv").string(), 0, &set).code(), StatusCode::kIo);
  EXPECT_EQ(ReadSick((dir / "in.txt").string(), 0, &set).code(), StatusCode::kCorrupt);  // no header columns
  std::filesystem::remove_all(dir);
}

// n points per class around class centres in d dimensions.
Features Blobs(int classes, size_t per_class, uint32_t d, double spread, uint32_t seed, std::vector<int>* labels) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0, spread);
  Features f;
  f.d = d;
  for (size_t i = 0; i < per_class; ++i) {
    for (int c = 0; c < classes; ++c) {
      for (uint32_t j = 0; j < d; ++j) f.x.push_back(static_cast<float>((j % classes == static_cast<uint32_t>(c) ? 3 : 0) + noise(rng)));
      labels->push_back(c);
    }
  }
  f.n = labels->size();
  return f;
}

TEST(LogReg, SeparableToyProblem) {
  std::vector<int> labels;
  Features x = Blobs(3, 40, 6, 0.3, 1, &labels);
  LogReg model;
  LogRegOptions o;
  o.l2 = 1e-4;
  ASSERT_TRUE(model.Fit(x, labels, 3, {}, o).ok());
  EXPECT_EQ(model.Accuracy(x, labels, {}), 1.0);
  EXPECT_GT(model.iterations(), 0);
}

TEST(LogReg, SymmetricCaseMatchesClosedForm) {
  // x = -1 (class 0) and +1 (class 1): standardised x stays +-1, the biases are 0 and w1 = -w0 = w with
  // d/dw [log(1 + exp(-2w)) + lambda w^2] = 0, i.e. sigmoid(-2w) = lambda w.
  Features x;
  x.n = 2, x.d = 1, x.x = {-1, 1};
  const std::vector<int> labels = {0, 1};
  const double lambda = 0.1;
  double lo = 0, hi = 10;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (1 / (1 + std::exp(2 * mid)) > lambda * mid ? lo : hi) = mid;
  }
  LogReg model;
  LogRegOptions o;
  o.l2 = lambda;
  o.gradient_tolerance = 1e-9;
  ASSERT_TRUE(model.Fit(x, labels, 2, {}, o).ok());
  const std::vector<double>& p = model.parameters();
  ASSERT_EQ(p.size(), 4u);
  // The objective runs on float features and logits, so the optimum is resolved to about 1e-4.
  EXPECT_NEAR(p[1], lo, 2e-4);
  EXPECT_NEAR(p[0], -lo, 2e-4);
  EXPECT_NEAR(p[2], 0, 1e-6);
  EXPECT_NEAR(p[3], 0, 1e-6);
}

TEST(LogReg, StratifiedFoldsAreBalancedAndDeterministic) {
  std::vector<int> labels(100);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = i < 30 ? 1 : 0;
  std::vector<size_t> rows(100);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  const std::vector<int> folds = StratifiedFolds(labels, rows, 10, 1111);
  EXPECT_EQ(folds, StratifiedFolds(labels, rows, 10, 1111));
  EXPECT_NE(folds, StratifiedFolds(labels, rows, 10, 7));
  for (int f = 0; f < 10; ++f) {
    int n = 0, pos = 0;
    for (size_t i = 0; i < rows.size(); ++i) n += folds[i] == f, pos += folds[i] == f && labels[i] == 1;
    EXPECT_EQ(n, 10);
    EXPECT_EQ(pos, 3);
  }
}

TEST(LogReg, ProtocolsOnNoisyBlobs) {
  std::vector<int> labels;
  Features x = Blobs(2, 100, 8, 4.0, 2, &labels);  // overlapping: accuracy well below 1, above chance
  ClassifyOptions o;
  o.threads = 2;
  ClassifyResult r, again;
  ASSERT_TRUE(CrossValidate(x, labels, 2, o, &r).ok());
  EXPECT_GT(r.accuracy, 0.7);
  EXPECT_LT(r.accuracy, 1.0);
  EXPECT_EQ(r.chosen_l2.size(), 10u);
  o.threads = 1;  // same result on any thread count
  ASSERT_TRUE(CrossValidate(x, labels, 2, o, &again).ok());
  EXPECT_EQ(r.accuracy, again.accuracy);
  EXPECT_EQ(r.chosen_l2, again.chosen_l2);
  std::vector<int> test_labels, dev_labels;
  Features test = Blobs(2, 50, 8, 4.0, 3, &test_labels), dev = Blobs(2, 50, 8, 4.0, 4, &dev_labels);
  ASSERT_TRUE(TrainDevTest(x, labels, dev, dev_labels, test, test_labels, 2, o, &r).ok());
  EXPECT_GT(r.accuracy, 0.7);
  ASSERT_TRUE(TrainTest(x, labels, test, test_labels, 2, o, &r).ok());
  EXPECT_GT(r.accuracy, 0.7);
  EXPECT_EQ(CrossValidate(x, std::vector<int>(x.n, 5), 2, o, &r).code(), StatusCode::kInvalidArgument);
}

Features Random(size_t n, uint32_t d, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0, 1);
  Features f;
  f.n = n, f.d = d;
  for (size_t i = 0; i < n * d; ++i) f.x.push_back(g(rng));
  return f;
}

TEST(Retrieval, TatoebaOnSyntheticVectors) {
  Features a = Random(50, 16, 1), b = a;
  std::mt19937 rng(2);
  std::normal_distribution<float> g(0, 0.05f);
  for (float& v : b.x) v += g(rng);
  TatoebaResult r = TatoebaAccuracy(a, b);
  EXPECT_EQ(r.accuracy, 1.0);
  // Rows 0 and 1 of b swapped: both directions miss exactly those two.
  for (uint32_t j = 0; j < b.d; ++j) std::swap(b.x[j], b.x[b.d + j]);
  r = TatoebaAccuracy(a, b);
  EXPECT_DOUBLE_EQ(r.a_to_b, 48.0 / 50);
  EXPECT_DOUBLE_EQ(r.b_to_a, 48.0 / 50);
  EXPECT_DOUBLE_EQ(r.accuracy, 48.0 / 50);
}

TEST(Retrieval, BuccMiningOnSyntheticVectors) {
  // 20 sources; targets: noisy copies of sources 0..14 in reverse order, then 10 unrelated rows.
  Features src = Random(20, 32, 3), extra = Random(10, 32, 4), tgt;
  tgt.d = 32;
  std::vector<std::pair<size_t, size_t>> gold;
  for (size_t i = 0; i < 15; ++i) {
    const size_t s = 14 - i;
    for (uint32_t j = 0; j < 32; ++j) tgt.x.push_back(src.row(s)[j] + 0.05f * extra.row(i % 10)[j]);
    gold.push_back({s, i});
  }
  tgt.x.insert(tgt.x.end(), extra.x.begin(), extra.x.end());
  tgt.n = 25;
  BuccResult r = BuccF1(src, tgt, gold);
  EXPECT_EQ(r.gold, 15u);
  EXPECT_DOUBLE_EQ(r.f1, 1.0);
  EXPECT_DOUBLE_EQ(r.precision, 1.0);
  EXPECT_DOUBLE_EQ(r.recall, 1.0);
  gold.push_back({19, 24});  // a gold pair the vectors do not support lowers recall
  r = BuccF1(src, tgt, gold);
  EXPECT_LT(r.f1, 1.0);
  EXPECT_GT(r.f1, 0.9);
}

TEST(Suite, TaskNamesAndGroups) {
  std::vector<std::string> tasks;
  ASSERT_TRUE(ExpandTasks("sts,trec", &tasks).ok());
  EXPECT_EQ(tasks, (std::vector<std::string>{"stsb", "sts12", "sts13", "sts14", "sts15", "trec"}));
  ASSERT_TRUE(ExpandTasks("all", &tasks).ok());
  EXPECT_EQ(tasks, TaskNames());
  Status s = ExpandTasks("stsb,nope", &tasks);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("unknown task 'nope'"), std::string::npos);
}

// A bag-of-characters encoder: enough signal for every task to run, no model needed.
Embedder CharEmbedder() {
  Embedder e;
  e.name = "chars";
  e.dims = 32;
  e.embed = [](const std::vector<std::string>& texts, float* out) {
    for (size_t i = 0; i < texts.size(); ++i) {
      for (uint32_t j = 0; j < 32; ++j) out[i * 32 + j] = 0;
      for (unsigned char ch : texts[i]) out[i * 32 + (ch % 32)] += 1;
    }
    return Status::Ok();
  };
  return e;
}

TEST(Suite, EveryTaskRunsOnASubsetWithACallback) {
  SuiteOptions o;
  o.data_dir = swe::test::SharedData();
  o.limit = 60;
  o.classify.folds = 3;
  o.classify.inner_folds = 2;
  std::vector<std::vector<TaskResult>> all(1);
  for (const std::string& task : TaskNames()) {
    TaskResult r;
    Status s = RunTask(task, CharEmbedder(), o, &r);
    ASSERT_TRUE(s.ok()) << task << ": " << s.ToString();
    EXPECT_EQ(r.task, task);
    EXPECT_TRUE(std::isfinite(r.score)) << task;
    EXPECT_GT(r.n, 0u) << task;
    EXPECT_FALSE(r.details.empty()) << task;
    const nlohmann::json j = nlohmann::json::parse(ToJsonLine("chars", r));
    EXPECT_EQ(j["task"], task);
    all[0].push_back(r);
  }
  const std::string md = MarkdownTables({"chars"}, all);
  EXPECT_NE(md.find("| task | metric | n | chars |"), std::string::npos) << md;
  EXPECT_NE(md.find("| sts12 | spearman/MSRpar |"), std::string::npos) << md;
  Embedder broken = CharEmbedder();
  broken.embed = [](const std::vector<std::string>&, float*) { return Status(StatusCode::kInternal, "boom"); };
  TaskResult r;
  EXPECT_EQ(RunTask("stsb", broken, o, &r).message(), "boom");
  o.data_dir = "/nonexistent";
  EXPECT_EQ(RunTask("stsb", CharEmbedder(), o, &r).code(), StatusCode::kIo);
}

}  // namespace
}  // namespace swe::eval

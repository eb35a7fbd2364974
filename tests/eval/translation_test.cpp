// Cross-lingual tasks of the evaluation library: translation retrieval (tatoeba's metric on "en TAB xx"
// files: flores-de/ja/zh and pairs:FILE) and STS17 es-en, on small files written here whose scores are
// computed by hand, plus the reader's errors and the real FLORES files under ../shared/data.
//
// The hand-made vectors are unit vectors at given angles (degrees) in 2-d: the cosine of two is the
// cosine of the angle between them, so "nearest" is "smallest angle apart".
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include <unistd.h>

#include "swe/eval/datasets.h"
#include "swe/eval/retrieval.h"
#include "swe/eval/suite.h"
#include "test_paths.h"

namespace swe::eval {
namespace {

namespace fs = std::filesystem;

constexpr double kPi = 3.14159265358979323846;

Features AtAngles(const std::vector<double>& degrees) {
  Features f;
  f.n = degrees.size(), f.d = 2;
  for (double deg : degrees) {
    f.x.push_back(static_cast<float>(std::cos(deg * kPi / 180)));
    f.x.push_back(static_cast<float>(std::sin(deg * kPi / 180)));
  }
  return f;
}

// Embeds each known text at its angle; any other text is an error, so the tests also check which
// texts reach the encoder.
Embedder AngleEmbedder(std::map<std::string, double> degrees) {
  Embedder e;
  e.name = "angles";
  e.dims = 2;
  e.embed = [degrees = std::move(degrees)](const std::vector<std::string>& texts, float* out) {
    for (size_t i = 0; i < texts.size(); ++i) {
      auto it = degrees.find(texts[i]);
      if (it == degrees.end()) return InvalidArgument("unexpected text '" + texts[i] + "'");
      out[2 * i] = static_cast<float>(std::cos(it->second * kPi / 180));
      out[2 * i + 1] = static_cast<float>(std::sin(it->second * kPi / 180));
    }
    return Status::Ok();
  };
  return e;
}

// A fresh temporary folder per test.
struct TempDir {
  fs::path dir = fs::temp_directory_path() / ("swe_translation_test_" + std::to_string(getpid()));
  TempDir() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() { fs::remove_all(dir); }
  std::string Write(const std::string& name, const std::string& text) const {
    fs::create_directories((dir / name).parent_path());
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  }
};

// a at 0, 90, 180, 270 degrees; b at 10, 40, 230, 320.
//   a -> b: a0 (0): b0 10 apart, b1 40        -> b0, right
//           a1 (90): b1 50, b0 80             -> b1, right
//           a2 (180): b2 50, b1/b3 140        -> b2, right
//           a3 (270): b2 40, b3 50            -> b2, wrong          a -> b = 3/4
//   b -> a: b0 (10): a0 10                    -> a0, right
//           b1 (40): a0 40, a1 50             -> a0, wrong
//           b2 (230): a3 40, a2 50            -> a3, wrong
//           b3 (320): a0 40, a3 50            -> a0, wrong          b -> a = 1/4, mean 1/2
const std::vector<double> kA = {0, 90, 180, 270}, kB = {10, 40, 230, 320};

TEST(Translation, NearestNeighbourAccuracyByHand) {
  const TatoebaResult r = TatoebaAccuracy(AtAngles(kA), AtAngles(kB));
  EXPECT_DOUBLE_EQ(r.a_to_b, 0.75);
  EXPECT_DOUBLE_EQ(r.b_to_a, 0.25);
  EXPECT_DOUBLE_EQ(r.accuracy, 0.5);
  // Distinct texts change nothing.
  const TatoebaResult t = TatoebaAccuracy(AtAngles(kA), AtAngles(kB), {"a", "b", "c", "d"}, {"w", "x", "y", "z"});
  EXPECT_DOUBLE_EQ(t.a_to_b, 0.75);
  EXPECT_DOUBLE_EQ(t.b_to_a, 0.25);
}

TEST(Translation, RepeatedSentencesAreOneCandidate) {
  // "Ja." translates both "I agree." and "Yes.": the same text, so the same vector (10 degrees) twice.
  // a: "I agree." 0, "Yes." 25, "No." 180; b: "Ja." 10, "Ja." 10, "Nein." 180.
  const Features a = AtAngles({0, 25, 180}), b = AtAngles({10, 10, 180});
  // By row: a1 (25) finds b0 (the tie between the two copies goes to the lower row): wrong; b1 (10)
  // finds a0 (10 apart, a1 15): wrong. 2/3 each way.
  TatoebaResult r = TatoebaAccuracy(a, b);
  EXPECT_DOUBLE_EQ(r.a_to_b, 2.0 / 3);
  EXPECT_DOUBLE_EQ(r.b_to_a, 2.0 / 3);
  // By text: b0 is "Ja.", and ("Yes.", "Ja.") is a pair of the set (row 1); a0 "I agree." with b1
  // "Ja." is row 0's pair. Every retrieval is right.
  r = TatoebaAccuracy(a, b, {"I agree.", "Yes.", "No."}, {"Ja.", "Ja.", "Nein."});
  EXPECT_DOUBLE_EQ(r.a_to_b, 1.0);
  EXPECT_DOUBLE_EQ(r.b_to_a, 1.0);
  // A repeated text is not a free pass: with "Nein." moved to 20 degrees, next to "Yes." (25), a1
  // finds b2 and b2 finds a1, and ("Yes.", "Nein.") is no pair of the set; a2 (180) still finds b2
  // (160 apart, the "Ja." copies 170). 2/3 each way.
  r = TatoebaAccuracy(a, AtAngles({10, 10, 20}), {"I agree.", "Yes.", "No."}, {"Ja.", "Ja.", "Nein."});
  EXPECT_DOUBLE_EQ(r.a_to_b, 2.0 / 3);
  EXPECT_DOUBLE_EQ(r.b_to_a, 2.0 / 3);
}

TEST(Translation, ReadsParallelFiles) {
  TempDir t;
  const std::string path = t.Write("en-de.tsv", "Hello.\tHallo.\r\n\nGood night.\tGute Nacht.\nYes.\tJa.\n");
  std::vector<std::string> en, de;
  ASSERT_TRUE(ReadParallelTsv(path, 0, &en, &de).ok());
  EXPECT_EQ(en, (std::vector<std::string>{"Hello.", "Good night.", "Yes."}));
  EXPECT_EQ(de, (std::vector<std::string>{"Hallo.", "Gute Nacht.", "Ja."}));
  ASSERT_TRUE(ReadParallelTsv(path, 2, &en, &de).ok());
  EXPECT_EQ(en.size(), 2u);
  EXPECT_EQ(de[1], "Gute Nacht.");
}

TEST(Translation, MalformedLinesNameFileAndLine) {
  TempDir t;
  std::vector<std::string> en, de;
  const std::pair<const char*, const char*> cases[] = {
      {"a\tb\nonly one side\n", "bad.tsv:2: expected 'en TAB translation' (2 tab-separated fields, found 1)"},
      {"a\tb\tc\n", "bad.tsv:1: expected 'en TAB translation' (2 tab-separated fields, found 3)"},
      {"a\tb\n\nc\t \n", "bad.tsv:3: a side of the pair is empty"},
      {"\tb\n", "bad.tsv:1: a side of the pair is empty"},
  };
  for (const auto& [text, message] : cases) {
    const Status s = ReadParallelTsv(t.Write("bad.tsv", text), 0, &en, &de);
    EXPECT_EQ(s.code(), StatusCode::kCorrupt) << text;
    EXPECT_NE(s.message().find(message), std::string::npos) << s.ToString();
  }
  const Status s = ReadParallelTsv((t.dir / "missing.tsv").string(), 0, &en, &de);
  EXPECT_EQ(s.code(), StatusCode::kIo);
  EXPECT_NE(s.message().find("missing.tsv"), std::string::npos) << s.ToString();
}

// Any bytes: a clean result or a clean error, and every pair read has two non-empty sides.
TEST(Translation, ReaderOnRandomBytes) {
  TempDir t;
  std::mt19937 rng(14);
  const char alphabet[] = {'a', '\t', '\n', '\r', ' ', '\0', '\xff', '\xe3'};
  std::vector<std::string> en, xx;
  for (int round = 0; round < 300; ++round) {
    std::string text(rng() % 64, ' ');
    for (char& c : text) c = alphabet[rng() % sizeof alphabet];
    const Status s = ReadParallelTsv(t.Write("random.tsv", text), 0, &en, &xx);
    if (!s.ok()) {
      EXPECT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
      EXPECT_NE(s.message().find("random.tsv:"), std::string::npos) << s.ToString();
      continue;
    }
    ASSERT_EQ(en.size(), xx.size());
    for (size_t i = 0; i < en.size(); ++i) EXPECT_TRUE(!en[i].empty() && !xx[i].empty());
  }
}

TEST(Translation, PairsTaskEndToEnd) {
  TempDir t;
  // The four pairs of NearestNeighbourAccuracyByHand: en at kA, de at kB.
  const std::string path = t.Write("en-de.mini.tsv", "zero\tzehn\nninety\tvierzig\none-eighty\tzweihundertdreissig\n"
                                                     "two-seventy\tdreihundertzwanzig\n");
  const Embedder e = AngleEmbedder({{"zero", 0}, {"ninety", 90}, {"one-eighty", 180}, {"two-seventy", 270},
                                    {"zehn", 10}, {"vierzig", 40}, {"zweihundertdreissig", 230},
                                    {"dreihundertzwanzig", 320}});
  TaskResult r;
  ASSERT_TRUE(RunTask("pairs:" + path, e, SuiteOptions(), &r).ok());
  EXPECT_EQ(r.task, "pairs:" + path);
  EXPECT_EQ(r.metric, "accuracy");
  EXPECT_DOUBLE_EQ(r.score, 50.0);
  EXPECT_EQ(r.n, 4u);
  using Details = std::vector<std::pair<std::string, double>>;
  EXPECT_EQ(r.details, (Details{{"accuracy/en->de", 75.0}, {"accuracy/de->en", 25.0}}));
  // --limit 3 keeps three pairs (a3 and b3 leave): a -> b 3/3; b -> a: b0 right, b1 wrong (a0),
  // b2 (230) right now that a3 is gone (a2, 50 apart): 2/3.
  SuiteOptions o;
  o.limit = 3;
  ASSERT_TRUE(RunTask("pairs:" + path, e, o, &r).ok());
  EXPECT_EQ(r.n, 3u);
  ASSERT_EQ(r.details.size(), 2u);
  EXPECT_DOUBLE_EQ(r.details[0].second, 100.0);
  EXPECT_NEAR(r.details[1].second, 200.0 / 3, 1e-9);
  EXPECT_NEAR(r.score, 250.0 / 3, 1e-9);
  // A file not named en-XX.*: the second language is "xx". Its malformed line stops the task.
  ASSERT_TRUE(RunTask("pairs:" + t.Write("mine.tsv", "zero\tzehn\n"), e, SuiteOptions(), &r).ok());
  EXPECT_EQ(r.details[0].first, "accuracy/en->xx");
  const Status s = RunTask("pairs:" + t.Write("broken.tsv", "zero\tzehn\nninety\n"), e, SuiteOptions(), &r);
  EXPECT_NE(s.message().find("broken.tsv:2: expected 'en TAB translation'"), std::string::npos) << s.ToString();
  EXPECT_EQ(RunTask("pairs:" + t.Write("empty.tsv", "\n"), e, SuiteOptions(), &r).code(), StatusCode::kNotFound);
}

TEST(Translation, ThousandCandidatesAtMost) {
  TempDir t;
  std::string text;
  std::map<std::string, double> degrees;
  for (int i = 0; i < 1005; ++i) {
    text += "s" + std::to_string(i) + "\tt" + std::to_string(i) + "\n";
    degrees["s" + std::to_string(i)] = degrees["t" + std::to_string(i)] = i * 0.3;  // a pair shares its vector
  }
  TaskResult r;
  ASSERT_TRUE(RunTask("pairs:" + t.Write("en-xy.big.tsv", text), AngleEmbedder(degrees), SuiteOptions(), &r).ok());
  EXPECT_EQ(r.n, 1000u);
  EXPECT_DOUBLE_EQ(r.score, 100.0);
  EXPECT_EQ(r.details[1].first, "accuracy/xy->en");
}

TEST(Translation, Sts17EsEnByHand) {
  TempDir t;
  const std::string dir = "eval/sts/STS17/";
  // Track 4a: gold 1, 2, 3, 4; the pairs' sentences 80, 60, 70 and 10 degrees apart, so the cosines
  // rank 1, 3, 2, 4. Spearman = 1 - 6 * (0 + 1 + 1 + 0) / (4 * (16 - 1)) = 0.8.
  t.Write(dir + "STS.input.track4a.es-en.txt", "uno\tone\ndos\ttwo\ntres\tthree\ncuatro\tfour\n");
  t.Write(dir + "STS.gs.track4a.es-en.txt", "1\n2\n3\n4\n");
  // Track 4b (English first): gold 5, 0, 3 against 0, 90 and 70 degrees apart ("tres" and "three"
  // keep their angles from 4a): the same order, Spearman 1.
  t.Write(dir + "STS.input.track4b.es-en.txt", "five\tcinco\nzero\tcero\nthree\ttres\n");
  t.Write(dir + "STS.gs.track4b.es-en.txt", "5\n0\n3\n");
  const Embedder e = AngleEmbedder({{"uno", 0},   {"one", 80},     {"dos", 0},   {"two", 60},   {"tres", 0},
                                    {"three", 70}, {"cuatro", 0}, {"four", 10}, {"five", 0},   {"cinco", 0},
                                    {"zero", 0},   {"cero", 90}});
  SuiteOptions o;
  o.data_dir = t.dir.string();
  TaskResult r;
  ASSERT_TRUE(RunTask("sts17-es-en", e, o, &r).ok());
  EXPECT_EQ(r.metric, "spearman");
  EXPECT_NEAR(r.score, 80.0, 1e-9);
  EXPECT_EQ(r.n, 4u);
  ASSERT_EQ(r.details.size(), 2u);
  EXPECT_EQ(r.details[1].first, "spearman/track4b.es-en");
  EXPECT_NEAR(r.details[1].second, 100.0, 1e-9);
  // Without track 4b the task says what is missing.
  fs::remove(t.dir / dir / "STS.gs.track4b.es-en.txt");
  const Status s = RunTask("sts17-es-en", e, o, &r);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("track4b.es-en"), std::string::npos) << s.ToString();
}

TEST(Translation, TaskNames) {
  std::vector<std::string> tasks;
  ASSERT_TRUE(ExpandTasks("pairs:x.tsv,flores,sts17-es-en,beir:d,flores-ja", &tasks).ok());
  EXPECT_EQ(tasks, (std::vector<std::string>{"sts17-es-en", "flores-de", "flores-ja", "flores-zh", "pairs:x.tsv",
                                             "beir:d"}));
  ASSERT_TRUE(ExpandTasks("sts17", &tasks).ok());
  EXPECT_EQ(tasks, std::vector<std::string>{"sts17"});
  EXPECT_EQ(ExpandTasks("pairs:", &tasks).code(), StatusCode::kInvalidArgument);
}

TEST(Translation, RealFloresFiles) {
  const std::string dir = std::string(swe::test::SharedData()) + "/train/parallel/";
  const std::pair<const char*, size_t> files[] = {
      {"en-de.flores_devtest.tsv", 1010}, {"en-ja.flores_devtest.tsv", 1012}, {"en-zh.flores_devtest.tsv", 1012}};
  for (const auto& [file, n] : files) {
    std::vector<std::string> en, xx;
    ASSERT_TRUE(ReadParallelTsv(dir + file, 0, &en, &xx).ok()) << file;
    EXPECT_EQ(en.size(), n) << file;
  }
  std::vector<std::string> en, ja;
  ASSERT_TRUE(ReadParallelTsv(dir + "en-ja.flores_devtest.tsv", 1, &en, &ja).ok());
  EXPECT_EQ(en[0].rfind("\"We now have 4-month-old mice that are non-diabetic", 0), 0u) << en[0];
  EXPECT_EQ(ja[0].rfind("「我々が飼っている生後4か月のマウス", 0), 0u) << ja[0];
}

}  // namespace
}  // namespace swe::eval

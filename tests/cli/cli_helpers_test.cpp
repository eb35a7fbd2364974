// swe dedupe and swe cluster on the real English model: paraphrases group, topics separate, a seed gives
// the same clusters every run, a text with no known word stands alone, bad arguments are one-line errors.
#include <set>

#include <nlohmann/json.hpp>

#include "cli_fixture.h"
#include "test_paths.h"

namespace {

using namespace swe_cli_test;
using nlohmann::json;

const std::string kModel = std::string(swe::test::SourceDir()) + "/models/swe-en-use-lite-large-para.swe";  // the default

// The inertia `swe cluster` reports on stderr.
double Inertia(const Result& r) {
  const size_t at = r.err.find("inertia ");
  EXPECT_NE(at, std::string::npos) << r.err;
  return at == std::string::npos ? -1 : std::stod(r.err.substr(at + 8));
}

// The JS package's dedupe test texts (js/test/use.test.js): the three cat sentences are near-duplicates.
const std::string kDupes =
    "A cat sat on the mat.\nStocks fell today.\na cat sat on the mat\nzzqqxx\nzzqqxx\nThe cat sat on a mat!\n"
    "It rained all day.\n";
// Two topics of four (js/test/use.test.js's cluster test).
const std::string kTopics =
    "a cat sleeps on the sofa\nthe dog barked at the cat\nkittens and puppies play\na horse runs in the field\n"
    "stock prices fell sharply\nthe bank raised interest rates\ninvestors sold their shares\n"
    "the market rallied on earnings\n";

std::vector<json> JsonLines(const std::string& text) {
  std::vector<json> out;
  for (const std::string& line : Lines(text)) out.push_back(json::parse(line));
  return out;
}

TEST_F(CliTest, DedupeKeepsTheFirstOfEachGroup) {
  WriteFile(P("dupes.txt"), kDupes);
  Result r = Run({"dedupe", kModel, "--docs", P("dupes.txt")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "A cat sat on the mat.\nStocks fell today.\nzzqqxx\nzzqqxx\nIt rained all day.\n");
  // A text with no known word is a group of its own, even beside an identical one; stderr says so.
  EXPECT_NE(r.err.find("document 4 has no word the model knows: a group of its own"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("document 5 has no word"), std::string::npos) << r.err;

  r = Run({"dedupe", kModel, "--docs", P("dupes.txt"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<json> groups = JsonLines(r.out);
  ASSERT_EQ(groups.size(), 5u) << r.out;
  EXPECT_EQ(groups[0]["group"], 0);
  EXPECT_EQ(groups[0]["id"], "1");
  ASSERT_EQ(groups[0]["duplicates"].size(), 2u);
  EXPECT_EQ(groups[0]["duplicates"][0]["id"], "3");
  EXPECT_EQ(groups[0]["duplicates"][1]["id"], "6");
  for (const json& d : groups[0]["duplicates"]) EXPECT_GE(d["score"].get<double>(), 0.9);
  for (size_t g = 1; g < groups.size(); ++g) EXPECT_TRUE(groups[g]["duplicates"].empty()) << groups[g];

  // At 1 only identical vectors merge: the three cat sentences have the same words, so the same
  // vector (as in JS), and the cosine of a vector with itself must reach 1 exactly.
  r = Run({"dedupe", kModel, "--docs", P("dupes.txt"), "--threshold", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "A cat sat on the mat.\nStocks fell today.\nzzqqxx\nzzqqxx\nIt rained all day.\n");

  // Lower thresholds merge more: at -1 everything with a known word is one group (as in JS).
  r = Run({"dedupe", kModel, "--docs", P("dupes.txt"), "--threshold", "-1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "A cat sat on the mat.\nzzqqxx\nzzqqxx\n");
  // ...and a text with no known word stays a group of its own at -1 when it comes first (its cosine
  // with anything is 0, which -1 would pass).
  WriteFile(P("zero_first.txt"), "zzqqxx\nA cat sat on the mat.\nStocks fell today.\n");
  r = Run({"dedupe", kModel, "--docs", P("zero_first.txt"), "--threshold", "-1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "zzqqxx\nA cat sat on the mat.\n");
  // Stdin and .jsonl with its own ids.
  r = Run({"dedupe", kModel, "--docs", "-", "--threshold", "0.9"}, kDupes);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Lines(r.out).size(), 5u) << r.out;
  WriteFile(P("dupes.jsonl"), "{\"text\": \"a cat sat on the mat\", \"id\": \"x\"}\n{\"text\": \"A cat sat on the mat.\", \"id\": \"y\"}\n");
  r = Run({"dedupe", kModel, "--docs", P("dupes.jsonl"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  groups = JsonLines(r.out);
  ASSERT_EQ(groups.size(), 1u) << r.out;
  EXPECT_EQ(groups[0]["id"], "x");
  EXPECT_EQ(groups[0]["duplicates"][0]["id"], "y");
}

TEST_F(CliTest, ClusterSeparatesTopicsTheSameOnEveryRun) {
  WriteFile(P("topics.txt"), kTopics);
  Result r = Run({"cluster", kModel, "--docs", P("topics.txt"), "-k", "2", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<json> docs = JsonLines(r.out);
  ASSERT_EQ(docs.size(), 8u) << r.out;
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(docs[i]["id"], std::to_string(i + 1));
    EXPECT_EQ(docs[i]["cluster"], docs[i < 4 ? 0 : 4]["cluster"]) << r.out;
  }
  EXPECT_NE(docs[0]["cluster"], docs[4]["cluster"]) << r.out;
  // Text output: CLUSTER<tab>TEXT, the same labels.
  Result text = Run({"cluster", kModel, "--docs", P("topics.txt"), "-k", "2"});
  ASSERT_EQ(text.code, 0) << text.err;
  std::vector<std::string> lines = Lines(text.out);
  ASSERT_EQ(lines.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(lines[i], std::to_string(docs[i]["cluster"].get<int>()) + "\t" + docs[i]["text"].get<std::string>());
  }
  // Deterministic for a seed, and the seed matters. k = 8: one document each.
  std::set<std::string> outcomes;
  for (int seed : {0, 1, 7, 12345}) {
    const std::vector<std::string> args = {"cluster", kModel, "--docs", P("topics.txt"), "-k", "3", "--seed", std::to_string(seed)};
    Result a = Run(args), b = Run(args);
    ASSERT_EQ(a.code, 0) << a.err;
    EXPECT_EQ(a.out, b.out) << "seed " << seed;
    outcomes.insert(a.out);
    // Three clusters split a topic but never mix the two.
    std::set<std::string> animals, money;
    std::vector<std::string> rows = Lines(a.out);
    ASSERT_EQ(rows.size(), 8u);
    for (size_t i = 0; i < 8; ++i) (i < 4 ? animals : money).insert(rows[i].substr(0, rows[i].find('\t')));
    for (const std::string& label : animals) EXPECT_EQ(money.count(label), 0u) << "seed " << seed << ":\n" << a.out;
  }
  EXPECT_GT(outcomes.size(), 1u) << "the seed changes nothing";
  r = Run({"cluster", kModel, "--docs", P("topics.txt"), "-k", "8"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::set<std::string> labels;
  for (const std::string& line : Lines(r.out)) labels.insert(line.substr(0, line.find('\t')));
  EXPECT_EQ(labels.size(), 8u) << r.out;
}

// Restarts share one random stream, so the first of R starts is the single start of --restarts 1 and
// the best of R is never worse. On kTopics a single start at seed 0 stops in a local optimum with the
// default model (inertia 5.02 against 3.37 for the topic split): the default of 4 starts finds the split
// (ClusterSeparatesTopicsTheSameOnEveryRun).
TEST_F(CliTest, ClusterKeepsTheStartOfLowestInertia) {
  WriteFile(P("topics.txt"), kTopics);
  bool better = false;
  for (int seed : {0, 1, 2, 3}) {
    const std::vector<std::string> args = {"cluster", kModel, "--docs", P("topics.txt"), "-k", "2", "--seed", std::to_string(seed)};
    std::vector<std::string> one = args, many = args;
    one.insert(one.end(), {"--restarts", "1"});
    many.insert(many.end(), {"--restarts", "8"});
    Result a = Run(one), b = Run(many);
    ASSERT_EQ(a.code, 0) << a.err;
    ASSERT_EQ(b.code, 0) << b.err;
    EXPECT_LE(Inertia(b), Inertia(a)) << "seed " << seed;
    better = better || Inertia(b) < Inertia(a);
  }
  EXPECT_TRUE(better) << "no seed's single start was improved on: the restarts test lost its case";
}

TEST_F(CliTest, ClusterLeavesOutTextsWithoutKnownWords) {
  WriteFile(P("mixed.txt"), "stock prices fell sharply\nzzqqxx\ninvestors sold their shares\n");
  Result r = Run({"cluster", kModel, "--docs", P("mixed.txt"), "-k", "2", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<json> docs = JsonLines(r.out);
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_TRUE(docs[1]["cluster"].is_null()) << r.out;
  EXPECT_NE(docs[0]["cluster"], docs[2]["cluster"]) << r.out;  // two clusters for the two known texts
  EXPECT_NE(r.err.find("document 2 has no word the model knows: in no cluster"), std::string::npos) << r.err;
  r = Run({"cluster", kModel, "--docs", P("mixed.txt"), "-k", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Lines(r.out)[1], "-\tzzqqxx");
  // k counts the documents that can be clustered.
  ExpectOneLineError(Run({"cluster", kModel, "--docs", P("mixed.txt"), "-k", "3"}), 2,
                     "-k 3 is more than the 2 documents with a known word");
}

TEST_F(CliTest, HelpersRejectBadArguments) {
  WriteFile(P("topics.txt"), kTopics);
  const std::string docs = P("topics.txt");
  ExpectOneLineError(Run({"cluster", kModel, "--docs", docs, "-k", "0"}), 2, "-k must be a whole number in [1,");
  ExpectOneLineError(Run({"cluster", kModel, "--docs", docs, "-k", "9"}), 2, "-k 9 is more than the 8 documents");
  ExpectOneLineError(Run({"cluster", kModel, "--docs", docs}), 2, "-k K is required");
  ExpectOneLineError(Run({"cluster", kModel, "-k", "2"}), 2, "--docs FILE is required");
  ExpectOneLineError(Run({"cluster", kModel, "--docs", docs, "-k", "2", "--seed", "-1"}), 2, "--seed");
  ExpectOneLineError(Run({"cluster", kModel, "--docs", docs, "-k", "2", "--restarts", "0"}), 2, "--restarts");
  ExpectOneLineError(Run({"cluster", kModel, "--docs", docs, "-k", "2", "--restarts", "1001"}), 2, "--restarts");
  ExpectOneLineError(Run({"dedupe", kModel}), 2, "--docs FILE is required");
  ExpectOneLineError(Run({"dedupe", kModel, "--docs", docs, "--threshold", "1.5"}), 2, "--threshold must be a number in [-1, 1]");
  ExpectOneLineError(Run({"dedupe", kModel, "--docs", docs, "--threshold", "-2"}), 2, "--threshold");
  ExpectOneLineError(Run({"dedupe", kModel, "--docs", docs, "--threshold", "nan"}), 2, "--threshold");
  ExpectOneLineError(Run({"dedupe", kModel, "--docs", docs, "--colour"}), 2, "colour");
  ExpectOneLineError(Run({"dedupe", kModel, "--docs", P("missing.txt")}), 1, "missing.txt");
  ExpectOneLineError(Run({"dedupe", "--docs", docs}), 2, "expected MODEL");
  Result r = Run({"--help"});
  EXPECT_NE(r.out.find("dedupe MODEL --docs FILE"), std::string::npos);
  EXPECT_NE(r.out.find("cluster MODEL --docs FILE -k K"), std::string::npos);
  EXPECT_EQ(Run({"cluster", "--help"}).code, 0);
}

}  // namespace

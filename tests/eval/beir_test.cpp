// BEIR retrieval in the evaluation library: nDCG@k and recall@k against hand-computed values, the
// reader on a small fixture written here (and its errors), exact cosine ranking end to end through
// RunTask, and the real SciFact files under ../shared/data/eval/retrieval/scifact.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include <unistd.h>

#include "swe/eval/datasets.h"
#include "swe/eval/retrieval.h"
#include "swe/eval/suite.h"
#include "test_paths.h"

namespace swe::eval {
namespace {

namespace fs = std::filesystem;

TEST(Beir, NdcgAndRecallByHand) {
  // Ranking 5, 2, 7, 1; relevant: 2 (1), 1 (2), 9 (1); 3 judged non-relevant.
  const Judgements judged = {{2, 1}, {1, 2}, {9, 1}, {3, 0}};
  // nDCG@3: DCG = 1/log2(3); ideal = 2 + 1/log2(3) + 1/log2(4).
  EXPECT_NEAR(NdcgAtK({5, 2, 7, 1}, judged, 3), 0.20151514190050246, 1e-12);
  // nDCG@4 adds 2/log2(5) for row 1 at rank 4; the ideal keeps its 3 gains.
  EXPECT_NEAR(NdcgAtK({5, 2, 7, 1}, judged, 4),
              (1 / std::log2(3.0) + 2 / std::log2(5.0)) / (2 + 1 / std::log2(3.0) + 0.5), 1e-12);
  EXPECT_DOUBLE_EQ(NdcgAtK({1, 2, 9}, judged, 10), 1.0);  // the ideal order
  EXPECT_DOUBLE_EQ(RecallAtK({5, 2, 7, 1}, judged, 3), 1.0 / 3);
  EXPECT_DOUBLE_EQ(RecallAtK({5, 2, 7, 1}, judged, 4), 2.0 / 3);
  EXPECT_DOUBLE_EQ(RecallAtK({3}, judged, 100), 0.0);   // judged 0 is not relevant
  EXPECT_EQ(NdcgAtK({3, 4}, {{3, 0}}, 10), 0.0);        // nothing relevant: 0, not NaN
  EXPECT_EQ(RecallAtK({3, 4}, {}, 10), 0.0);
}

// A BEIR directory in a fresh temporary folder; each test writes its own files.
struct Fixture {
  fs::path dir = fs::temp_directory_path() / ("swe_beir_test_" + std::to_string(getpid()));
  Fixture() {
    fs::remove_all(dir);
    fs::create_directories(dir / "qrels");
    Write("corpus.jsonl",
          "{\"_id\": \"d1\", \"title\": \"Cats\", \"text\": \"purr\"}\n"
          "{\"_id\": \"d2\", \"title\": \"\", \"text\": \"dogs bark\"}\n"
          "\n"
          "{\"_id\": 3, \"text\": \"cats and dogs\", \"metadata\": {}}\n"
          "{\"_id\": \"d4\", \"title\": \"Fish\", \"text\": \"swim\"}\n");
    Write("queries.jsonl",
          "{\"_id\": \"q1\", \"text\": \"cat\"}\n{\"_id\": \"q2\", \"text\": \"dog\"}\n"
          "{\"_id\": \"q3\", \"text\": \"unjudged\"}\n{\"_id\": \"q4\", \"text\": \"nothing\"}\n");
    Write("qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\t3\t1\nq2\td4\t2\nq2\td2\t1\nq4\td1\t0\n");
  }
  ~Fixture() { fs::remove_all(dir); }
  void Write(const std::string& name, const std::string& text) const { std::ofstream(dir / name) << text; }
  Status Read(size_t limit, BeirSet* set) const { return ReadBeir(dir.string(), "test", limit, set); }
};

// Fixed 2-d vectors for the fixture's texts; any other text is an error, so the test also checks
// which texts get embedded (documents as title + " " + text, judged queries only).
Embedder TableEmbedder() {
  static const std::map<std::string, std::pair<float, float>> table = {
      {"Cats purr", {1, 0}},   {"dogs bark", {0, 1}}, {"cats and dogs", {1, 1}}, {"Fish swim", {-1, 0}},
      {"cat", {1, 0.1f}},      {"dog", {0, 1}},       {"nothing", {0.5f, 0.5f}}};
  Embedder e;
  e.name = "table";
  e.dims = 2;
  e.embed = [](const std::vector<std::string>& texts, float* out) {
    for (size_t i = 0; i < texts.size(); ++i) {
      auto it = table.find(texts[i]);
      if (it == table.end()) return InvalidArgument("unexpected text '" + texts[i] + "'");
      out[2 * i] = it->second.first, out[2 * i + 1] = it->second.second;
    }
    return Status::Ok();
  };
  return e;
}

TEST(Beir, ReadsTheFixture) {
  Fixture f;
  BeirSet set;
  ASSERT_TRUE(f.Read(0, &set).ok());
  EXPECT_EQ(set.doc_ids, (std::vector<std::string>{"d1", "d2", "3", "d4"}));
  EXPECT_EQ(set.docs, (std::vector<std::string>{"Cats purr", "dogs bark", "cats and dogs", "Fish swim"}));
  EXPECT_EQ(set.query_ids, (std::vector<std::string>{"q1", "q2", "q4"}));  // judged ones, qrels order
  ASSERT_EQ(set.qrels.size(), 3u);
  EXPECT_EQ(set.qrels[1], (Judgements{{3, 2}, {1, 1}}));
  // limit 1: the first judged query, the first document and the document it judges.
  ASSERT_TRUE(f.Read(1, &set).ok());
  EXPECT_EQ(set.query_ids, std::vector<std::string>{"q1"});
  EXPECT_EQ(set.doc_ids, (std::vector<std::string>{"d1", "3"}));
  EXPECT_EQ(set.qrels[0], (Judgements{{1, 1}}));
}

TEST(Beir, ScoresTheFixtureByHand) {
  Fixture f;
  SuiteOptions o;
  TaskResult r;
  Status s = RunTask("beir:" + f.dir.string(), TableEmbedder(), o, &r);
  ASSERT_TRUE(s.ok()) << s.ToString();
  // q1 ranks d1, 3, d2, d4 (relevant 3 at rank 2): 1/log2(3). q2 ranks d2, 3, d1, d4 (d1 and d4
  // tie at cosine 0: the lower row first): (1 + 2/log2(5)) / (2 + 1/log2(3)). q4 has no relevant
  // document and is not scored.
  EXPECT_EQ(r.metric, "ndcg@10");
  EXPECT_EQ(r.n, 2u);
  EXPECT_NEAR(r.score, 100 * (0.6309297535714575 + 0.7074887171046738) / 2, 1e-9);
  ASSERT_EQ(r.details.size(), 1u);
  EXPECT_EQ(r.details[0].first, "recall@100");
  EXPECT_DOUBLE_EQ(r.details[0].second, 100);
  o.limit = 1;
  ASSERT_TRUE(RunTask("beir:" + f.dir.string(), TableEmbedder(), o, &r).ok());
  EXPECT_EQ(r.n, 1u);
  EXPECT_NEAR(r.score, 100 * 0.6309297535714575, 1e-9);
}

TEST(Beir, BadFilesNameFileAndLine) {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"corpus.jsonl", "{\"_id\": \"d1\", \"text\": \"x\"}\n{\"_id\": \"d2\", \"text\": \n", "corpus.jsonl:2: not a JSON object"},
      {"corpus.jsonl", "[1, 2]\n", "corpus.jsonl:1: not a JSON object"},
      {"corpus.jsonl", "{\"title\": \"t\", \"text\": \"x\"}\n", "corpus.jsonl:1: no \"_id\""},
      {"corpus.jsonl", "{\"_id\": 1.5, \"text\": \"x\"}\n", "corpus.jsonl:1: \"_id\" is neither a string nor an integer"},
      {"corpus.jsonl", "{\"_id\": \"d1\", \"text\": 7}\n", "corpus.jsonl:1: \"text\" is not a string"},
      {"corpus.jsonl", "{\"_id\": \"d1\", \"text\": \"a\"}\n{\"_id\": \"d1\", \"text\": \"b\"}\n",
       "corpus.jsonl:2: duplicate _id 'd1'"},
      {"corpus.jsonl", "{\"_id\": \"d1\", \"text\": \"a\"}\n", "corpus id '3' is not in"},
      {"queries.jsonl", "{\"_id\": \"q1\", \"text\": \"cat\"}\n", "test.tsv:3: query id 'q2' is not in"},
      {"qrels/test.tsv", "q1\t3\t1\n", "test.tsv:1: expected the header"},
      {"qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\t3\n", "test.tsv:2: expected 3 tab-separated fields"},
      {"qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\t3\thigh\n", "test.tsv:2: bad score 'high'"},
      {"qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\t3\t1\nq1\t3\t1\n", "test.tsv:3: query 'q1' judges '3' twice"},
      {"qrels/test.tsv", "query-id\tcorpus-id\tscore\n", "test.tsv: no judgements"},
  };
  for (const auto& [file, text, message] : cases) {
    Fixture f;
    f.Write(file, text);
    BeirSet set;
    Status s = f.Read(0, &set);
    EXPECT_FALSE(s.ok()) << file << ": " << text;
    EXPECT_NE(s.message().find(message), std::string::npos) << s.ToString();
  }
  Fixture f;
  fs::remove(f.dir / "queries.jsonl");
  BeirSet set;
  EXPECT_EQ(f.Read(0, &set).code(), StatusCode::kIo);
}

TEST(Beir, TaskNames) {
  std::vector<std::string> tasks;
  ASSERT_TRUE(ExpandTasks("beir:/b,stsb,beir,beir:/a,beir:/b", &tasks).ok());
  EXPECT_EQ(tasks, (std::vector<std::string>{"stsb", "scifact", "beir:/b", "beir:/a"}));
  EXPECT_EQ(ExpandTasks("beir:", &tasks).code(), StatusCode::kInvalidArgument);
}

TEST(Beir, SciFactFiles) {
  BeirSet set;
  Status s = ReadBeir(std::string(swe::test::SharedData()) + "/eval/retrieval/scifact", "test", 0, &set);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(set.docs.size(), 5183u);
  EXPECT_EQ(set.queries.size(), 300u);
  size_t judgements = 0;
  for (const Judgements& j : set.qrels) judgements += j.size();
  EXPECT_EQ(judgements, 339u);
  EXPECT_EQ(set.doc_ids[0], "4983");
  EXPECT_EQ(set.docs[0].rfind("Microstructural development of human newborn cerebral white matter assessed in vivo "
                              "by diffusion tensor magnetic resonance imaging. Alterations of the architecture", 0),
            0u);
  EXPECT_EQ(set.query_ids[0], "1");
}

}  // namespace
}  // namespace swe::eval

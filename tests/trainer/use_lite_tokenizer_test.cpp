#include "use_lite_tokenizer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.h"
#include "use_lite_test_util.h"
#include "test_paths.h"

namespace swe::trainer {
namespace {

// Reserved 0..5, then: 6 ▁ 7 ▁a 8 b 9 ab 10 ▁ab 11 c 12 fi 13 é 14 ▁qu 15 u 16 x 17 c (duplicate of 11) 18 i.
const char* kVocab = R"([["\ufffd", 0], ["<s>", 0], ["</s>", 0], ["extra_token_id_1", 0], ["extra_token_id_2", 0],
  ["extra_token_id_3", 0], ["\u2581", -2], ["\u2581a", -1], ["b", -2], ["ab", -3.5], ["\u2581ab", -3], ["c", -1],
  ["fi", -1], ["\u00e9", -1], ["\u2581qu", -10], ["u", -1], ["x", -1], ["c", -1.5], ["i", -5]])";

UseLiteTokenizer Tiny() {
  UseLiteTokenizer t;
  Status s = UseLiteTokenizer::FromJson(kVocab, &t);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return t;
}

std::vector<std::tuple<int32_t, uint32_t, uint32_t>> Tokens(const UseLiteTokenizer& t, const std::string& text) {
  std::vector<UseLiteToken> tokens;
  t.Tokenize(text, &tokens);
  std::vector<std::tuple<int32_t, uint32_t, uint32_t>> out;
  for (const UseLiteToken& k : tokens) out.emplace_back(k.id, k.begin, k.end);
  return out;
}

TEST(TrainerUseLiteTokenizer, NormalizesLikeTheJs) {
  UseLiteTokenizer t = Tiny();
  EXPECT_EQ(t.Normalize(""), "");
  EXPECT_EQ(t.Normalize("a b"), "\u2581a\u2581b");
  EXPECT_EQ(t.Normalize("\xEF\xAC\x81"), "\u2581fi");                 // ﬁ ligature (NFKC)
  EXPECT_EQ(t.Normalize("\xEF\xBC\xA1\xEF\xBC\x91"), "\u2581A1");     // fullwidth
  EXPECT_EQ(t.Normalize("a\xC2\xA0" "b"), "\u2581a\u2581b");          // NBSP -> space -> ▁
  EXPECT_EQ(t.Normalize("e\xCC\x81"), "\u2581\u00e9");                // composed
  EXPECT_EQ(t.Normalize("a\tb\n"), "\u2581a\tb\n");                   // only U+0020 becomes ▁
  EXPECT_EQ(t.Normalize("x\xFFy"), "\u2581x\ufffdy");                 // an invalid byte
}

TEST(TrainerUseLiteTokenizer, ViterbiTiesGoToTheLaterStart) {
  // ▁ab: "▁ab" (-3) ties with "▁a" + "b" (-1 - 2); the later start wins.
  EXPECT_EQ(Tokens(Tiny(), "ab"), (std::vector<std::tuple<int32_t, uint32_t, uint32_t>>{{7, 0, 1}, {8, 1, 2}}));
}

TEST(TrainerUseLiteTokenizer, MergesUnknownsAndKeepsByteRanges) {
  UseLiteTokenizer t = Tiny();
  // ▁a, two unknown characters (y, U+00FF) merged into one id 0 covering their 3 bytes, c.
  EXPECT_EQ(Tokens(t, "ay\xC3\xBF" "c"),
            (std::vector<std::tuple<int32_t, uint32_t, uint32_t>>{{7, 0, 1}, {0, 1, 4}, {17, 4, 5}}));
  // A duplicated piece ("c") keeps its last id; an emoji is one unknown covering its 4 bytes.
  EXPECT_EQ(Tokens(t, "a\xF0\x9F\x98\x80"), (std::vector<std::tuple<int32_t, uint32_t, uint32_t>>{{7, 0, 1}, {0, 1, 5}}));
  // A space becomes ▁ and covers the space byte; the leading ▁ covers nothing.
  EXPECT_EQ(Tokens(t, "c a"),
            (std::vector<std::tuple<int32_t, uint32_t, uint32_t>>{{6, 0, 0}, {17, 0, 1}, {7, 1, 3}}));
  // NFKC: the ligature's two output characters both map to its 3 bytes.
  EXPECT_EQ(Tokens(t, "a\xEF\xAC\x81"), (std::vector<std::tuple<int32_t, uint32_t, uint32_t>>{{7, 0, 1}, {12, 1, 4}}));
  EXPECT_TRUE(Tokens(t, "").empty());
}

TEST(TrainerUseLiteTokenizer, KeepsTheUnreachablePositionQuirk) {
  // Pieces 6 ▁qu, 7 u, 8 x. In "▁qux" no piece ends at position 1 (only "▁qu" starts at 0, and q alone
  // is unknown), so best[1] stays 0 ("unset"), which the JS treats as a free prefix: the best path
  // runs through it and backtracking emits id 0 for the ▁ and for q (merged), then u, x.
  UseLiteTokenizer t;
  ASSERT_TRUE(UseLiteTokenizer::FromJson(R"([["\ufffd", 0], ["<s>", 0], ["</s>", 0], ["e1", 0], ["e2", 0], ["e3", 0],
      ["\u2581qu", -10], ["u", -1], ["x", -1]])", &t).ok());
  EXPECT_EQ(Tokens(t, "qux"), (std::vector<std::tuple<int32_t, uint32_t, uint32_t>>{{0, 0, 1}, {7, 1, 2}, {8, 2, 3}}));
}

TEST(TrainerUseLiteTokenizer, RejectsBadVocabularies) {
  UseLiteTokenizer t;
  EXPECT_EQ(UseLiteTokenizer::FromJson("{}", &t).code(), StatusCode::kCorrupt);
  EXPECT_EQ(UseLiteTokenizer::FromJson("[[\"a\", 0]]", &t).code(), StatusCode::kCorrupt);
  std::string v = kVocab;
  EXPECT_EQ(UseLiteTokenizer::FromJson(v.substr(0, v.size() - 1) + ", [\"\", 0]]", &t).code(), StatusCode::kCorrupt);
  EXPECT_EQ(UseLiteTokenizer::FromJson(v.substr(0, v.size() - 1) + ", [\"z\"]]", &t).code(), StatusCode::kCorrupt);
  EXPECT_EQ(UseLiteTokenizer::FromJson(v.substr(0, v.size() - 1) + ", [\"z\", \"1\"]]", &t).code(), StatusCode::kCorrupt);
  ASSERT_TRUE(UseLiteTokenizer::FromJson(v.substr(0, v.size() - 1) + ", [\"z\", null]]", &t).ok());  // null: 0
  EXPECT_EQ(t.scores().back(), 0.0);
  EXPECT_EQ(UseLiteTokenizer::Load("/nonexistent/vocab.json", &t).code(), StatusCode::kIo);
}

TEST(TrainerUseLiteTokenizer, SubwordVocabForInference) {
  SubwordVocab v = Tiny().ToSubwordVocab();
  EXPECT_EQ(v.kind, SubwordKind::kUnigram);
  EXPECT_EQ(v.pieces.size(), 12u);  // 19 - 6 reserved - 1 duplicate
  EXPECT_EQ(v.scores.size(), 12u);
  EXPECT_EQ(v.pieces[0], "\u2581");
  EXPECT_EQ(v.pieces[10], "c");
  EXPECT_EQ(v.scores[10], -1.5f);  // its last entry
  EXPECT_FALSE(v.lowercase);
}

// Exact id parity with the original JS tokenizer on the golden sentences and on every STS-B dev sentence.
class TrainerUseLiteTokenizerReal : public ::testing::Test {
 protected:
  void SetUp() override {
    SWE_TEST_REQUIRE_USE_LITE(&dir_);
    Status s = UseLiteTokenizer::Load(dir_ + "/vocab.json", &tok_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    golden_ = nlohmann::json::parse(testing::ReadFile(testing::UseLiteFixture("golden.json")));
  }
  std::string dir_;
  UseLiteTokenizer tok_;
  nlohmann::json golden_;
};

TEST_F(TrainerUseLiteTokenizerReal, IdsMatchTheOriginalOnTheGoldenSentences) {
  const auto& sentences = golden_["sentences"];
  ASSERT_GE(sentences.size(), 100u);
  for (size_t i = 0; i < sentences.size(); ++i) {
    std::string text = sentences[i].get<std::string>();
    EXPECT_EQ(tok_.Encode(text), golden_["ids"][i].get<std::vector<int32_t>>()) << i << ": " << text;
    std::vector<UseLiteToken> tokens;
    tok_.Tokenize(text, &tokens);
    // Ranges are inside the text and in order; two tokens overlap only when they share an original
    // character (the pieces of one NFKC expansion, e.g. "½" -> "1⁄2").
    UseLiteToken last;
    for (const UseLiteToken& t : tokens) {
      EXPECT_LE(t.begin, t.end);
      EXPECT_LE(t.end, text.size());
      if (t.begin == t.end) continue;
      EXPECT_TRUE(t.begin >= last.end || (t.begin >= last.begin && t.end >= last.end && t.begin < last.end))
          << i << ": " << text;
      last = t;
    }
  }
}

uint32_t Fnv1a32(const std::string& s) {
  uint32_t h = 0x811c9dc5u;
  for (unsigned char c : s) h = (h ^ c) * 0x01000193u;
  return h;
}

TEST_F(TrainerUseLiteTokenizerReal, IdsMatchTheOriginalOnStsBenchmarkDev) {
  std::ifstream f(std::string(swe::test::SharedData()) + "/" + golden_["sts_dev"]["path"].get<std::string>());
  if (!f) GTEST_SKIP() << "no shared data";
  std::vector<std::string> sentences;
  for (std::string line; std::getline(f, line);) {
    std::vector<std::string> fields;
    for (size_t at = 0;;) {
      size_t tab = line.find('\t', at);
      fields.push_back(line.substr(at, tab == std::string::npos ? std::string::npos : tab - at));
      if (tab == std::string::npos) break;
      at = tab + 1;
    }
    if (fields.size() >= 7) sentences.insert(sentences.end(), {fields[5], fields[6]});
  }
  const auto& hashes = golden_["sts_dev"]["fnv1a32"];
  ASSERT_EQ(sentences.size(), hashes.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < sentences.size(); ++i) {
    std::string ids;
    for (int32_t id : tok_.Encode(sentences[i])) ids += (ids.empty() ? "" : ",") + std::to_string(id);
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x", Fnv1a32(ids));
    if (hashes[i].get<std::string>() != hex && ++mismatches <= 5) {
      ADD_FAILURE() << "sentence " << i << " differs: " << sentences[i] << " -> " << ids;
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << sentences.size();
}

}  // namespace
}  // namespace swe::trainer

#include "wordpiece.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "bert_unicode.h"
#include "data/matrix_io.h"
#include "swe/subword.h"
#include "test_util.h"
#include "test_paths.h"

namespace swe::trainer {
namespace {

std::vector<std::string> Pieces(const BertTokenizer& t, std::string_view text) {
  std::vector<TeacherToken> tokens;
  t.Tokenize(text, &tokens);
  std::vector<std::string> out;
  for (const auto& tok : tokens) out.push_back(t.pieces()[tok.id]);
  return out;
}

class TrainerWordPiece : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::WriteTinyBert(dir_.path(), testing::TinyBertOptions());
    ASSERT_TRUE(BertTokenizer::Load(dir_.file("tokenizer.json"), &tok_).ok());
  }
  testing::TempDir dir_;
  BertTokenizer tok_;
};

TEST_F(TrainerWordPiece, NormalisesSplitsAndKeepsOffsets) {
  EXPECT_EQ(tok_.Normalize("Héllo\tWÖRLD\x01 İ"), "hello world i");
  EXPECT_EQ(tok_.Normalize("a中b"), "a 中 b");
  std::vector<TeacherToken> tokens;
  std::string text = "The  Cats, walked!";
  tok_.Tokenize(text, &tokens);
  std::vector<std::string> got;
  for (const auto& t : tokens) got.push_back(tok_.pieces()[t.id] + "@" + text.substr(t.begin, t.end - t.begin));
  EXPECT_EQ(got, (std::vector<std::string>{"the@The", "cat@Cat", "##s@s", ",@,", "walked@walked", "!@!"}));
  EXPECT_EQ(Pieces(tok_, "Crème"), (std::vector<std::string>{"c", "##r", "##e", "##m", "##e"}));
  EXPECT_EQ(Pieces(tok_, "x7y"), std::vector<std::string>{"[UNK]"});  // no piece for 7
  EXPECT_EQ(Pieces(tok_, std::string(101, 'a')), std::vector<std::string>{"[UNK]"});
  EXPECT_EQ(tok_.cls_id(), 2);
  EXPECT_EQ(tok_.sep_id(), 3);
  EXPECT_EQ(tok_.pad_id(), 0);
}

TEST_F(TrainerWordPiece, ExportsACoreSubwordVocab) {
  SubwordVocab v = tok_.ToSubwordVocab();
  EXPECT_EQ(v.kind, SubwordKind::kWordPiece);
  EXPECT_TRUE(v.lowercase);
  EXPECT_TRUE(v.strip_accents);
  SubwordTokenizer st;
  ASSERT_TRUE(SubwordTokenizer::Create(v, &st).ok());
}

TEST(TrainerWordPieceJson, RejectsUnsupportedAndBrokenFiles) {
  BertTokenizer t;
  EXPECT_EQ(BertTokenizer::FromJson("{", &t).code(), StatusCode::kCorrupt);
  EXPECT_EQ(BertTokenizer::FromJson(R"({"model":{"type":"BPE"}})", &t).code(), StatusCode::kUnsupported);
  EXPECT_EQ(BertTokenizer::FromJson(R"({"model":{"type":"WordPiece","vocab":{"a":0}}})", &t).code(),
            StatusCode::kCorrupt);  // no [UNK]
  EXPECT_EQ(BertTokenizer::FromJson(R"({"model":{"type":"WordPiece","vocab":{"[UNK]":0,"a":5}}})", &t).code(),
            StatusCode::kCorrupt);  // ids not dense
  EXPECT_EQ(BertTokenizer::Load("/nonexistent/tokenizer.json", &t).code(), StatusCode::kIo);
}

TEST(TrainerBertUnicode, Predicates) {
  using namespace bert_unicode;
  EXPECT_TRUE(IsWhitespace(' '));
  EXPECT_TRUE(IsWhitespace(0x3000));
  EXPECT_FALSE(IsControl('\n'));
  EXPECT_TRUE(IsControl(0x200B));  // zero width space is Cf
  EXPECT_TRUE(IsPunctuation('$'));
  EXPECT_TRUE(IsPunctuation(0x3002));
  EXPECT_FALSE(IsPunctuation(0x20AC));  // € is Sc
  EXPECT_TRUE(IsChineseChar(0x4E2D));
  EXPECT_TRUE(IsNonspacingMark(0x301));
  std::u32string s;
  AppendNfd(0xE9, &s);
  EXPECT_EQ(s, (std::u32string{U'e', 0x301}));
  s.clear();
  AppendNfd(0xD55C, &s);  // 한
  EXPECT_EQ(s, (std::u32string{0x1112, 0x1161, 0x11AB}));
  s.clear();
  AppendLower(0x130, &s);
  AppendLower(0x3A3, &s);
  AppendLower(0xDF, &s);
  EXPECT_EQ(s, (std::u32string{U'i', 0x307, 0x3C3, 0xDF}));
}

// The real all-MiniLM-L6-v2 tokenizer (bert-base-uncased vocabulary), from the shared data.
TEST(TrainerWordPieceReal, MatchesKnownTokenizations) {
  std::string path = std::string(swe::test::SharedData()) + "/tokenizers/all-MiniLM-L6-v2/tokenizer.json";
  BertTokenizer t;
  Status s = BertTokenizer::Load(path, &t);
  if (s.code() == StatusCode::kIo) GTEST_SKIP() << "shared data not available: " << path;
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<TeacherToken> tokens;
  t.Tokenize("Hello, I'm a single sentence!", &tokens);
  std::vector<int32_t> ids;
  for (const auto& tok : tokens) ids.push_back(tok.id);
  EXPECT_EQ(ids, (std::vector<int32_t>{7592, 1010, 1045, 1005, 1049, 1037, 2309, 6251, 999}));
  EXPECT_EQ(t.cls_id(), 101);
  EXPECT_EQ(t.sep_id(), 102);
  EXPECT_EQ(t.pieces().size(), 30522u);
  SubwordTokenizer st;
  EXPECT_TRUE(SubwordTokenizer::Create(t.ToSubwordVocab(), &st).ok());
  std::string zh = std::string(swe::test::SharedData()) + "/tokenizers/bge-small-zh-v1.5/tokenizer.json";
  BertTokenizer z;
  ASSERT_TRUE(BertTokenizer::Load(zh, &z).ok());
  EXPECT_FALSE(z.config().lowercase);
  std::vector<std::string> pieces = Pieces(z, "我爱北京");
  EXPECT_EQ(pieces, (std::vector<std::string>{"我", "爱", "北", "京"}));
}

// Added tokens written literally in the text, as Hugging Face's AddedVocabulary matches them.
TEST(TrainerWordPieceAdded, MatchesAddedTokensLikeHuggingFace) {
  testing::TempDir dir;
  testing::WriteTinyBert(dir.path(), testing::TinyBertOptions());
  nlohmann::json j = nlohmann::json::parse(testing::ReadFile(dir.file("tokenizer.json")));
  auto added = [](const char* content, int id, bool normalized, bool single_word = false, bool lstrip = false,
                  bool rstrip = false) {
    return nlohmann::json{{"id", id}, {"content", content}, {"single_word", single_word}, {"lstrip", lstrip},
                          {"rstrip", rstrip}, {"normalized", normalized}, {"special", !normalized}};
  };
  j["added_tokens"] = nlohmann::json::array({added("[CLS]", 2, false), added("[MASK]", 4, false),
                                             added("[SEP]", 3, false, false, true, true)});
  BertTokenizer t;
  ASSERT_TRUE(BertTokenizer::FromJson(j.dump(), &t).ok());
  std::string text = "the [MASK] cat[CLS]x [mask] a  [SEP]  sat";
  std::vector<TeacherToken> tokens;
  t.Tokenize(text, &tokens);
  std::vector<std::string> got;
  for (const auto& k : tokens) got.push_back(t.pieces()[k.id] + "@" + text.substr(k.begin, k.end - k.begin));
  // Not normalised: matched on the original text only ("[mask]" is ordinary text); [SEP] strips the
  // spaces on both sides.
  EXPECT_EQ(got, (std::vector<std::string>{"the@the", "[MASK]@[MASK]", "cat@cat", "[CLS]@[CLS]", "x@x", "[UNK]@[",
                                           "m@m", "##a@a", "##s@s", "##k@k", "[UNK]@]", "a@a", "[SEP]@  [SEP]  ", "sat@sat"}));
  // Normalised and single-word: matched on the lower-cased text, only as a whole word.
  j["added_tokens"] = nlohmann::json::array({added("Red Car", 40, true, true)});
  ASSERT_TRUE(BertTokenizer::FromJson(j.dump(), &t).ok());
  EXPECT_EQ(Pieces(t, "a RED car, redred car"), (std::vector<std::string>{"a", t.pieces()[40], ",", "red", "##r", "##ed", "car"}));
  EXPECT_EQ(t.max_id(), static_cast<int32_t>(t.pieces().size()) - 1);
  j["added_tokens"] = nlohmann::json::array({added("<extra>", 500, false)});  // past the WordPiece vocabulary
  ASSERT_TRUE(BertTokenizer::FromJson(j.dump(), &t).ok());
  EXPECT_EQ(t.max_id(), 500);
  j["added_tokens"] = nlohmann::json::array({nlohmann::json{{"content", "x"}}});
  EXPECT_EQ(BertTokenizer::FromJson(j.dump(), &t).code(), StatusCode::kCorrupt);
}

// Id parity with Hugging Face's JavaScript tokenizer (@huggingface/tokenizers, the tokenizer of
// transformers.js) on every WordPiece tokenizer of the shared data and ~53,000 real sentences. The
// reference ids are written by scripts/fetch-hf-tokenizers.sh (trainer/tools/hf_tokenizer_ids.mjs)
// into the git-ignored .cache; without them the test skips, or fails when SWE_REQUIRE_HF_TOKENIZERS=1
// (scripts/test.sh sets it after fetching).
TEST(TrainerWordPieceHfParity, IdsMatchHuggingFaceJsOnRealSentences) {
  const char* env = std::getenv("SWE_HF_TOKENIZER_IDS");
  std::string path = env && *env ? env : std::string(swe::test::SourceDir()) + "/.cache/hf-tokenizers/wordpiece_ids.json";
  if (!FileExists(path)) {
    const char* req = std::getenv("SWE_REQUIRE_HF_TOKENIZERS");
    if (req && std::string(req) == "1") FAIL() << "reference ids not found: " << path;
    GTEST_SKIP() << "reference ids not written (bash scripts/fetch-hf-tokenizers.sh)";
  }
  nlohmann::json ref = nlohmann::json::parse(testing::ReadFile(path));
  const auto& sentences = ref["sentences"];
  ASSERT_GT(sentences.size(), 10000u);
  ASSERT_GE(ref["tokenizers"].size(), 2u);
  for (const auto& [name, ids] : ref["tokenizers"].items()) {
    BertTokenizer t;
    std::string tok_path = std::string(swe::test::SharedData()) + "/tokenizers/" + name + "/tokenizer.json";
    Status s = BertTokenizer::Load(tok_path, &t);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(ids.size(), sentences.size());
    size_t mismatches = 0, total = 0;
    std::vector<TeacherToken> tokens;
    for (size_t i = 0; i < sentences.size(); ++i) {
      std::string text = sentences[i].get<std::string>();
      t.Tokenize(text, &tokens);
      std::vector<int32_t> got = {t.cls_id()};
      for (const auto& k : tokens) got.push_back(k.id);
      got.push_back(t.sep_id());
      total += got.size();
      if (got != ids[i].get<std::vector<int32_t>>() && ++mismatches <= 5) {
        ADD_FAILURE() << name << ": sentence " << i << " differs: " << text << "\n  ours: "
                      << ::testing::PrintToString(got) << "\n  hf:   " << ids[i].dump();
      }
    }
    EXPECT_EQ(mismatches, 0u) << name;
    std::printf("%s: %zu of %zu sentences identical (%zu ids), reference %s\n", name.c_str(),
                sentences.size() - mismatches, sentences.size(), total, ref["package"].get<std::string>().c_str());
  }
}

}  // namespace
}  // namespace swe::trainer

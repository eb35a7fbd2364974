// The t5 teacher's tokenizer on hand-made data: the precompiled charsmap's double-array trie, base64,
// the Unigram Viterbi path and <unk> fusion, Hugging Face's normalizers / Metaspace with their offset
// rules, added tokens, the </s> template and truncation, and bad input. The golden parity with
// Hugging Face itself is in t5_golden_test.cpp.
#include "unigram_tokenizer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>

#include "data/matrix_io.h"
#include "precompiled_charsmap.h"
#include "t5_test_util.h"
#include "test_util.h"
#include "test_paths.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

const std::vector<std::pair<std::string, double>> kPieces = {
    {"\xE2\x96\x81", -2.0}, {"\xE2\x96\x81" "a", -1.0}, {"\xE2\x96\x81" "ab", -3.0}, {"b", -1.5}, {"c", -4.0},
    {"bc", -2.0}, {"\xE2\x96\x81" "fine", -3.0}, {"ne", -2.0}, {"\xE2\x96\x81" "hello", -2.5}};
const std::map<std::string, std::string> kCharsmap = {
    {"\xEF\xAC\x81", "fi"},   // U+FB01 ﬁ
    {"\t", " "},
    {"\xE2\x80\x8B", ""},     // U+200B zero width space: removed
    {"\xEF\xBC\xA1", "a"}};   // U+FF21 full-width A (lower-cased here, to be visible)

UnigramTokenizer Make(const json& j) {
  UnigramTokenizer t;
  Status s = UnigramTokenizer::FromJson(j.dump(), &t);
  EXPECT_TRUE(s.ok()) << s.message();
  return t;
}

// "piece@begin-end" per token.
std::string Show(const UnigramTokenizer& t, std::string_view text, uint32_t max_tokens = 0, bool encode = false) {
  std::vector<TeacherToken> tokens;
  if (encode) {
    t.Encode(text, max_tokens, &tokens);
  } else {
    t.Tokenize(text, &tokens);
  }
  std::string out;
  for (const auto& tok : tokens) {
    out += (out.empty() ? "" : " ") + t.pieces()[tok.id] + "@" + std::to_string(tok.begin) + "-" + std::to_string(tok.end);
  }
  return out;
}

TEST(TrainerCharsmap, DoubleArrayPrefixSearchAndTransform) {
  PrecompiledCharsmap m;
  ASSERT_TRUE(PrecompiledCharsmap::FromBlob(testing::BuildCharsmap({{"a", "A"}, {"ab", "X"}, {"\xEF\xAC\x81", "fi"},
                                                                     {"\xE2\x80\x8B", ""}}), &m).ok());
  EXPECT_EQ(m.PrefixValues("abz").size(), 2u);
  EXPECT_EQ(m.PrefixValues("ba").size(), 0u);
  // Hugging Face takes the shortest key that prefixes the chunk, not the longest.
  EXPECT_EQ(m.Transform("ab").value(), "A");
  EXPECT_EQ(m.Transform("a").value(), "A");
  EXPECT_FALSE(m.Transform("b").has_value());
  EXPECT_EQ(m.Transform("\xEF\xAC\x81").value(), "fi");
  EXPECT_EQ(m.Transform("\xE2\x80\x8B").value(), "");
  EXPECT_FALSE(m.Transform("\xEF\xAC").has_value());  // a key's prefix is no match
  PrecompiledCharsmap from64;
  ASSERT_TRUE(PrecompiledCharsmap::FromBase64(testing::Base64(testing::BuildCharsmap({{"q", "Q"}})), &from64).ok());
  EXPECT_EQ(from64.Transform("q").value(), "Q");
}

TEST(TrainerCharsmap, RejectsBadBlobsAndNeverReadsOutside) {
  PrecompiledCharsmap m;
  Status s = PrecompiledCharsmap::FromBase64("@@@@", &m);
  EXPECT_NE(s.message().find("bad base64 character"), std::string::npos) << s.message();
  s = PrecompiledCharsmap::FromBase64(testing::Base64(std::string("\x10\x00", 2)), &m);
  EXPECT_NE(s.message().find("shorter than its 4-byte header"), std::string::npos) << s.message();
  s = PrecompiledCharsmap::FromBlob(std::string("\xE8\x03\x00\x00", 4) + std::string(8, 'x'), &m);
  EXPECT_NE(s.message().find("trie size 1000 does not fit"), std::string::npos) << s.message();
  std::string text;
  EXPECT_FALSE(Base64Decode("QUJD=", &text).ok());  // padding that does not complete a group
  ASSERT_TRUE(Base64Decode("QUJDRA==", &text).ok());
  EXPECT_EQ(text, "ABCD");
  // Random units: lookups stay inside the blob (ASan would tell) and end.
  std::mt19937 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    std::string blob = std::string("\x40\x00\x00\x00", 4);
    for (int i = 0; i < 64 + 16; ++i) blob.push_back(static_cast<char>(rng()));
    ASSERT_TRUE(PrecompiledCharsmap::FromBlob(blob, &m).ok());
    for (int k = 0; k < 20; ++k) {
      std::string key;
      for (int i = 0; i < 6; ++i) key.push_back(static_cast<char>(rng() % 255 + 1));
      (void)m.Transform(key);
    }
  }
}

TEST(TrainerUnigram, ViterbiFindsTheBestPathNotTheGreedyOne) {
  UnigramTokenizer t = Make(testing::T5TokenizerJson(kPieces, {}));
  // ▁a + bc = -3 beats ▁ab + c = -7 and ▁a + b + c = -6.5; the prepended ▁ takes a's bytes.
  EXPECT_EQ(Show(t, "abc"), "\xE2\x96\x81" "a@0-1 bc@1-3");
  EXPECT_EQ(Show(t, "hello abc"), "\xE2\x96\x81" "hello@0-5 \xE2\x96\x81" "a@5-7 bc@7-9");
  // Unknown characters: each costs min_score - 10, consecutive ones are fused into one <unk>.
  EXPECT_EQ(Show(t, "qq\xC3\xA9q bc"), "\xE2\x96\x81@0-1 <unk>@0-5 \xE2\x96\x81@5-6 bc@6-8");
  EXPECT_EQ(t.unk_id(), 2);
  // The unknown penalty: <unk>(q) + zz would win at min_score - 0 (-12.05 > -12.1); at min_score - 10
  // the pieces qz + z do.
  UnigramTokenizer p = Make(testing::T5TokenizerJson({{"\xE2\x96\x81", -1.0}, {"qz", -12.0}, {"z", -0.1}, {"zz", -0.05}}, {}));
  EXPECT_EQ(Show(p, "qzz"), "\xE2\x96\x81@0-1 qz@0-2 z@2-3");
}

TEST(TrainerUnigram, NormalizersAndMetaspaceKeepHuggingFaceOffsets) {
  UnigramTokenizer t = Make(testing::T5TokenizerJson(kPieces, kCharsmap));
  EXPECT_EQ(t.Normalize("\xEF\xAC\x81ne\tb  "), "fine b");
  EXPECT_EQ(Show(t, "\xEF\xAC\x81ne"), "\xE2\x96\x81" "fine@0-5");  // ﬁ -> fi: both from bytes 0-3
  EXPECT_EQ(Show(t, "a\xE2\x80\x8B" "b"), "\xE2\x96\x81" "a@0-1 b@4-5");  // U+200B removed
  EXPECT_EQ(Show(t, "a\tb"), "\xE2\x96\x81" "a@0-1 \xE2\x96\x81@1-2 b@2-3");
  // Replace(" {2,}" -> ▁): the new ▁ takes the last space's bytes.
  EXPECT_EQ(Show(t, "a   b"), "\xE2\x96\x81" "a@0-1 \xE2\x96\x81@3-4 b@4-5");
  EXPECT_EQ(Show(t, "\xEF\xBC\xA1" "bc  "), "\xE2\x96\x81" "a@0-3 bc@3-5");  // trailing spaces stripped
  // A run of 100,000 spaces is one match (no recursion, no quadratic time).
  EXPECT_EQ(Show(t, "a" + std::string(100000, ' ') + "b"), "\xE2\x96\x81" "a@0-1 \xE2\x96\x81@100000-100001 b@100001-100002");
  // Other repeat forms: {n}, {n,m} (greedy, then the rest of the run), +, an escaped character.
  json j = testing::T5TokenizerJson(kPieces, {});
  j["normalizer"] = {{"type", "Replace"}, {"pattern", {{"Regex", "b{2,3}"}}}, {"content", "c"}};
  EXPECT_EQ(Make(j).Normalize("abbbbb b"), "acc b");
  j["normalizer"]["pattern"]["Regex"] = "\\.+";
  EXPECT_EQ(Make(j).Normalize("a...b.c"), "acbcc");
  j["normalizer"]["pattern"]["Regex"] = "b{2}";
  EXPECT_EQ(Make(j).Normalize("bbbbb"), "ccb");
  j["normalizer"] = {{"type", "Replace"}, {"pattern", {{"String", "ab"}}}, {"content", "X"}};
  EXPECT_EQ(Make(j).Normalize("aabab"), "aXX");
}

TEST(TrainerUnigram, AddedTokensTemplateAndTruncation) {
  UnigramTokenizer t = Make(testing::T5TokenizerJson(kPieces, kCharsmap));
  EXPECT_EQ(Show(t, "a<extra_id_0>bc</s>"), "\xE2\x96\x81" "a@0-1 <extra_id_0>@1-13 \xE2\x96\x81@13-14 bc@13-15 </s>@15-19");
  EXPECT_EQ(Show(t, "abc", 0, true), "\xE2\x96\x81" "a@0-1 bc@1-3 </s>@0-0");
  EXPECT_EQ(Show(t, "abc", 2, true), "\xE2\x96\x81" "a@0-1 </s>@0-0");  // </s> stays last
  EXPECT_EQ(Show(t, "", 0, true), "</s>@0-0");
  EXPECT_EQ(Show(t, "   ", 0, true), "</s>@0-0");
  EXPECT_EQ(t.Find("<extra_id_1>"), static_cast<int32_t>(3 + kPieces.size()));
  EXPECT_EQ(t.max_id(), static_cast<int32_t>(3 + kPieces.size() + 1));
  SubwordVocab v = t.ToSubwordVocab();  // the model's pieces, no special or sentinel token
  EXPECT_EQ(v.kind, SubwordKind::kUnigram);
  ASSERT_EQ(v.pieces.size(), kPieces.size());
  EXPECT_EQ(v.pieces[1], "\xE2\x96\x81" "a");
  EXPECT_FLOAT_EQ(v.scores[1], -1.0f);
}

TEST(TrainerUnigram, InvalidEmptyAndHugeText) {
  UnigramTokenizer t = Make(testing::T5TokenizerJson(kPieces, kCharsmap));
  // An invalid byte is read as U+FFFD (unknown here) and keeps its own byte.
  EXPECT_EQ(Show(t, "a\xFF" "b"), "\xE2\x96\x81" "a@0-1 <unk>@1-2 b@2-3");
  EXPECT_EQ(Show(t, ""), "");
  std::string huge;
  for (int i = 0; i < 200000; ++i) huge += "abc ";
  auto start = std::chrono::steady_clock::now();
  std::vector<TeacherToken> tokens;
  t.Encode(huge, 48, &tokens);
  EXPECT_EQ(tokens.size(), 48u);
  EXPECT_EQ(tokens.back().id, 1);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30.0);
}

TEST(TrainerUnigram, RejectsWhatItCannotReproduce) {
  auto error = [](const json& j) {
    UnigramTokenizer t;
    return UnigramTokenizer::FromJson(j.dump(), &t).message();
  };
  json base = testing::T5TokenizerJson(kPieces, kCharsmap);
  json j = base;
  j["normalizer"]["normalizers"].push_back({{"type", "NFKC"}});
  EXPECT_NE(error(j).find("normalizer type 'NFKC'"), std::string::npos) << error(j);
  j = base;
  j["pre_tokenizer"] = {{"type", "ByteLevel"}};
  EXPECT_NE(error(j).find("pre_tokenizer type 'ByteLevel'"), std::string::npos) << error(j);
  j = base;
  j["model"]["type"] = "BPE";
  EXPECT_NE(error(j).find("model type 'BPE'"), std::string::npos) << error(j);
  j = base;
  j["model"]["byte_fallback"] = true;
  EXPECT_NE(error(j).find("byte_fallback"), std::string::npos) << error(j);
  j = base;
  j["model"].erase("unk_id");
  EXPECT_NE(error(j).find("unk_id"), std::string::npos) << error(j);
  j = base;
  j["normalizer"]["normalizers"][0]["precompiled_charsmap"] = "AAAA*AAA";
  EXPECT_NE(error(j).find("precompiled_charsmap: bad base64 character at offset 4"), std::string::npos) << error(j);
  j = base;
  j["normalizer"]["normalizers"][0]["precompiled_charsmap"] = testing::Base64(std::string("\x08\x00\x00\x00\x01", 5));
  EXPECT_NE(error(j).find("does not fit"), std::string::npos) << error(j);
  j = base;
  for (const char* regex : {"\xE2\x96\x81+", " *", "[ab]+", "\\s+", " {0,}", " {2"}) {
    j["normalizer"]["normalizers"][2]["pattern"]["Regex"] = regex;
    EXPECT_NE(error(j).find("regex '" + std::string(regex) + "' (only one repeated ASCII character)"), std::string::npos) << error(j);
  }
  j = base;
  j["post_processor"] = {{"type", "ByteLevel"}};
  EXPECT_NE(error(j).find("post_processor type 'ByteLevel'"), std::string::npos) << error(j);
  j = base;
  j["pre_tokenizer"]["prepend_scheme"] = "sometimes";
  EXPECT_NE(error(j).find("prepend_scheme 'sometimes'"), std::string::npos) << error(j);
  EXPECT_NE(error(json::array()).find("not a JSON object"), std::string::npos);
  UnigramTokenizer t;
  Status s = UnigramTokenizer::Load("/nonexistent/dir/tokenizer.json", &t);
  EXPECT_NE(s.message().find("teacher tokenizer not found: /nonexistent/dir/tokenizer.json"), std::string::npos) << s.message();
}

TEST(TrainerUnigram, MetaspaceSchemesAndWhitespaceSplit) {
  json j = testing::T5TokenizerJson(kPieces, {});
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {{"type", "Sequence"},
                        {"pretokenizers", json::array({{{"type", "WhitespaceSplit"}},
                                                       {{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"add_prefix_space", true}}})}};
  UnigramTokenizer legacy = Make(j);  // T5's older tokenizer.json
  EXPECT_EQ(Show(legacy, " a\n\nbc "), "\xE2\x96\x81" "a@1-2 \xE2\x96\x81@4-5 bc@4-6");
  j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"prepend_scheme", "first"}};
  UnigramTokenizer first = Make(j);  // ▁ only in front of the text's start, not after an added token
  EXPECT_EQ(Show(first, "a<extra_id_0>bc"), "\xE2\x96\x81" "a@0-1 <extra_id_0>@1-13 bc@13-15");
  j["pre_tokenizer"]["prepend_scheme"] = "never";
  EXPECT_EQ(Show(Make(j), "abc"), "<unk>@0-1 bc@1-3");
}

// Random bytes (invalid UTF-8, NULs, pieces of sentinels, combining marks, spaces) through the real
// fixture tokenizer: no crash, every id in range, every range inside the text, </s> last.
TEST(TrainerUnigram, RandomBytesGiveValidTokens) {
  UnigramTokenizer t;
  ASSERT_TRUE(UnigramTokenizer::Load(std::string(swe::test::SourceDir()) + "/tests/trainer/fixtures/t5_golden/model/tokenizer.json", &t).ok());
  const std::vector<std::string> parts = {"<extra_id_", "</s>", "<unk", ">", " ", "  ", "\t", "\xCC\x81", "\xEF\xAC\x81",
                                          "\xE2\x80\x8B", "\xE2\x96\x81", "a", "Z", "\xE4\xB8\xAD", std::string(1, '\0')};
  std::mt19937 rng(11);
  std::vector<TeacherToken> tokens;
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text;
    int n = static_cast<int>(rng() % 24);
    for (int i = 0; i < n; ++i) {
      if (rng() % 3 == 0) text.push_back(static_cast<char>(rng()));
      else text += parts[rng() % parts.size()];
    }
    t.Encode(text, 48, &tokens);
    ASSERT_FALSE(tokens.empty());
    ASSERT_LE(tokens.size(), 48u);
    EXPECT_EQ(tokens.back().id, 1);
    for (const auto& k : tokens) {
      ASSERT_GE(k.id, 0);
      ASSERT_LE(k.id, t.max_id());
      ASSERT_LE(k.begin, k.end);
      ASSERT_LE(k.end, text.size());
    }
  }
}

// Ids identical to Hugging Face's JavaScript tokenizer (@huggingface/tokenizers, an implementation
// independent of the Rust one: a lattice Viterbi) on ~53,000 real sentences with the golden fixture's
// tokenizer. Its Precompiled normalizer approximates the charsmap (controls, some spaces, NFKC), so
// ids are compared where both normalised texts agree. The reference ids are written by
// scripts/fetch-hf-tokenizers.sh (trainer/tools/hf_tokenizer_ids.mjs) into the git-ignored .cache;
// without them the test skips, or fails when SWE_REQUIRE_HF_TOKENIZERS=1.
TEST(TrainerUnigramHfParity, IdsMatchHuggingFaceJsOnRealSentences) {
  const char* env = std::getenv("SWE_HF_TOKENIZER_IDS");
  std::string path = env && *env ? env : std::string(swe::test::SourceDir()) + "/.cache/hf-tokenizers/wordpiece_ids.json";
  const char* req = std::getenv("SWE_REQUIRE_HF_TOKENIZERS");
  const bool required = req && std::string(req) == "1";
  if (!FileExists(path)) {
    if (required) FAIL() << "reference ids not found: " << path;
    GTEST_SKIP() << "reference ids not written (bash scripts/fetch-hf-tokenizers.sh)";
  }
  json ref = json::parse(testing::ReadFile(path));
  if (!ref.contains("unigram")) {
    if (required) FAIL() << path << " has no unigram ids: rerun bash scripts/fetch-hf-tokenizers.sh";
    GTEST_SKIP() << path << " has no unigram ids (written before the t5 teacher)";
  }
  const auto& sentences = ref["sentences"];
  const auto& ids = ref["unigram"]["t5_golden"]["ids"];
  const auto& normalized = ref["unigram"]["t5_golden"]["normalized"];
  ASSERT_GT(sentences.size(), 10000u);
  ASSERT_EQ(ids.size(), sentences.size());
  UnigramTokenizer t;
  Status s = UnigramTokenizer::Load(std::string(swe::test::SourceDir()) + "/tests/trainer/fixtures/t5_golden/model/tokenizer.json", &t);
  ASSERT_TRUE(s.ok()) << s.ToString();
  size_t compared = 0, mismatches = 0, total = 0;
  std::vector<TeacherToken> tokens;
  for (size_t i = 0; i < sentences.size(); ++i) {
    std::string text = sentences[i].get<std::string>();
    if (t.Normalize(text) != normalized[i].get<std::string>()) continue;
    ++compared;
    t.Encode(text, 0, &tokens);
    std::vector<int32_t> got;
    for (const auto& k : tokens) got.push_back(k.id);
    total += got.size();
    if (got != ids[i].get<std::vector<int32_t>>() && ++mismatches <= 5) {
      ADD_FAILURE() << "sentence " << i << " differs: " << text << "\n  ours: " << ::testing::PrintToString(got)
                    << "\n  hf:   " << ids[i].dump();
    }
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(compared, sentences.size() * 9 / 10);  // the normalisations agree on most text
  std::printf("t5_golden: %zu of %zu sentences compared (normalised alike), %zu identical (%zu ids), reference %s\n",
              compared, sentences.size(), compared - mismatches, total, ref["package"].get<std::string>().c_str());
}

}  // namespace
}  // namespace swe::trainer

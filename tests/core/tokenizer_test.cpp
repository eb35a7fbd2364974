// The word tokenizer (swe/tokenizer.h, docs/TOKENIZER.md) over real models built by the writer/reader.
#include "swe/tokenizer.h"

#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "container.h"
#include "core/test_models.h"
#include "swe/subword.h"
#include "unknown_cache.h"

namespace swe {
namespace {

using Strings = std::vector<std::string>;
using testing::BuildModel;
using testing::RandomContents;

const std::string kWordStart = "\xE2\x96\x81";  // U+2581

ModelContents Contents(const Strings& words) {
  ModelContents c = RandomContents(words, 4);
  c.tokenizer.subword = SubwordVocab();
  return c;
}

// What Analyze reports, as "text:match:word" strings (word = the vocabulary word, or "-").
Strings Analyzed(const Model& model, std::string_view text) {
  Tokenizer tokenizer(model);
  std::vector<Token> tokens;
  tokenizer.Analyze(text, &tokens);
  Strings out;
  const char* names[] = {"exact", "folded", "stripped", "prefix", "unknown"};
  for (const Token& t : tokens) {
    EXPECT_LE(t.begin, t.end);
    EXPECT_LE(t.end, text.size());
    std::string s(text.substr(t.begin, t.end - t.begin));
    s += ":";
    s += names[static_cast<int>(t.match)];
    s += ":";
    s += t.id >= 0 ? std::string(model.word(t.id)) : "-";
    EXPECT_EQ(t.id < 0, t.match == Match::kUnknown);
    out.push_back(s);
  }
  // Encode gives the known ids of Analyze, in order.
  std::vector<uint32_t> ids, want;
  tokenizer.Encode(text, &ids);
  for (const Token& t : tokens) {
    if (t.id >= 0) want.push_back(static_cast<uint32_t>(t.id));
  }
  EXPECT_EQ(ids, want);
  return out;
}

Strings Split(std::string_view text, CjkMode cjk = CjkMode::kCharacters, uint32_t max_tokens = 0,
              const SubwordTokenizer* subword = nullptr) {
  TokenizerConfig config;
  config.cjk = cjk;
  config.max_tokens = max_tokens;
  Strings words;
  SplitWords(text, config, subword, &words);
  return words;
}

TEST(SplitWords, EmptyAndSeparatorsOnly) {
  EXPECT_EQ(Split(""), Strings{});
  EXPECT_EQ(Split("   \t\n "), Strings{});
  EXPECT_EQ(Split("...!?,;--"), Strings{});
  EXPECT_EQ(Split("\xE2\x80\x94\xC2\xA0\xE3\x80\x82"), Strings{});  // — NBSP 。
}

TEST(SplitWords, PunctuationSeparatesAndIsDropped) {
  EXPECT_EQ(Split("Hello, world!"), (Strings{"Hello", "world"}));
  EXPECT_EQ(Split("don't"), (Strings{"don", "t"}));
  EXPECT_EQ(Split("don\xE2\x80\x99t"), (Strings{"don", "t"}));  // right single quotation mark
  EXPECT_EQ(Split("U.S. e-mail"), (Strings{"U", "S", "e", "mail"}));
  EXPECT_EQ(Split("\"quoted\" \xE2\x80\x9Csmart\xE2\x80\x9D \xC2\xABguillemets\xC2\xBB"),
            (Strings{"quoted", "smart", "guillemets"}));
  EXPECT_EQ(Split("a+b=c^2 $5 x_y a|b ~q `r` #tag @me"),
            (Strings{"a", "b", "c", "2", "5", "x", "y", "a", "b", "q", "r", "tag", "me"}));
  EXPECT_EQ(Split("3.14 1,000"), (Strings{"3", "14", "1", "000"}));
}

TEST(SplitWords, UnicodeSpacesAndFormatCharacters) {
  // NBSP, em space, ideographic space, zero-width space, ZWJ, BOM, tab, newline, NEL, line separator.
  EXPECT_EQ(Split("a\xC2\xA0" "b\xE2\x80\x83" "c\xE3\x80\x80" "d\xE2\x80\x8B" "e\xE2\x80\x8D" "f\xEF\xBB\xBF"
                  "g\th\ni\xC2\x85j\xE2\x80\xA8k"),
            (Strings{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}));
  EXPECT_EQ(Split("\xEF\xBB\xBFhello"), Strings{"hello"});
}

TEST(SplitWords, MarksAndDigitsAreWordCharacters) {
  EXPECT_EQ(Split("cafe\xCC\x81 x2 \xD9\xA1\xD9\xA2 \xE0\xA4\xB9\xE0\xA4\xBF\xE0\xA4\x82\xE0\xA4\xA6\xE0\xA5\x80"),
            (Strings{"cafe\xCC\x81", "x2", "\xD9\xA1\xD9\xA2", "\xE0\xA4\xB9\xE0\xA4\xBF\xE0\xA4\x82\xE0\xA4\xA6\xE0\xA5\x80"}));
  EXPECT_EQ(Split("\xD0\x9C\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0, \xCE\x91\xCE\xB8\xCE\xAE\xCE\xBD\xCE\xB1"),
            (Strings{"\xD0\x9C\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0", "\xCE\x91\xCE\xB8\xCE\xAE\xCE\xBD\xCE\xB1"}));
}

TEST(SplitWords, SymbolsAndEmojiAreTokensOfTheirOwn) {
  // ❤️ is U+2764 + U+FE0F: the variation selector is dropped. $ is ASCII punctuation, € a symbol.
  EXPECT_EQ(Split("I \xE2\x9D\xA4\xEF\xB8\x8F NY \xF0\x9F\x98\x80\xF0\x9F\x98\x80 $5 \xE2\x82\xAC" "5 x\xE2\x88\x91y"),
            (Strings{"I", "\xE2\x9D\xA4", "NY", "\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80", "5", "\xE2\x82\xAC", "5", "x",
                     "\xE2\x88\x91", "y"}));
  // A family emoji: the joiners separate, each person is a token.
  EXPECT_EQ(Split("\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9"), (Strings{"\xF0\x9F\x91\xA8", "\xF0\x9F\x91\xA9"}));
}

TEST(SplitWords, CjkCharactersAndKana) {
  const std::string tokyo_tower = "\xE6\x9D\xB1\xE4\xBA\xAC\xE3\x82\xBF\xE3\x83\xAF\xE3\x83\xBC\xE3\x81\xAB";  // 東京タワーに
  EXPECT_EQ(Split(tokyo_tower), (Strings{"\xE6\x9D\xB1", "\xE4\xBA\xAC", "\xE3\x82\xBF", "\xE3\x83\xAF", "\xE3\x83\xBC",
                                         "\xE3\x81\xAB"}));
  EXPECT_EQ(Split(tokyo_tower, CjkMode::kNone), Strings{tokyo_tower});
  // Mixed scripts: Latin runs stay words around CJK characters.
  EXPECT_EQ(Split("abc\xE6\xBC\xA2\xE5\xAD\x97" "def"), (Strings{"abc", "\xE6\xBC\xA2", "\xE5\xAD\x97", "def"}));
  EXPECT_EQ(Split("abc\xE6\xBC\xA2\xE5\xAD\x97" "def", CjkMode::kNone), Strings{"abc\xE6\xBC\xA2\xE5\xAD\x97" "def"});
  // Extension B and a compatibility ideograph; CJK punctuation separates.
  EXPECT_EQ(Split("\xF0\xA0\x80\x80\xE3\x80\x82\xEF\xA4\x80"), (Strings{"\xF0\xA0\x80\x80", "\xEF\xA4\x80"}));
  // Without a subword tokenizer, kSubwords falls back to characters.
  EXPECT_EQ(Split("\xE6\x9D\xB1\xE4\xBA\xAC", CjkMode::kSubwords), (Strings{"\xE6\x9D\xB1", "\xE4\xBA\xAC"}));
  // Hangul is not CJK here (Korean separates words with spaces).
  EXPECT_EQ(Split("\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4"), Strings{"\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4"});
}

TEST(SplitWords, InvalidUtf8BecomesReplacementTokens) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(Split("ab\xFF" "cd"), (Strings{"ab", r, "cd"}));
  EXPECT_EQ(Split("ab\xE2\x82"), (Strings{"ab", r, r}));                 // truncated at the end
  EXPECT_EQ(Split("\xC0\xAF" "x"), (Strings{r, r, "x"}));                // overlong
  EXPECT_EQ(Split("x\xED\xA0\x80y"), (Strings{"x", r, r, r, "y"}));      // surrogate
  EXPECT_EQ(Split("\xF4\x90\x80\x80"), (Strings{r, r, r, r}));           // above U+10FFFF
  EXPECT_EQ(Split("caf\xC3" "e"), (Strings{"caf", r, "e"}));
  EXPECT_EQ(Split("a " + r + " b"), (Strings{"a", r, "b"}));             // a real U+FFFD is a symbol
  EXPECT_EQ(Split(std::string("a\0b", 3)), (Strings{"a", "b"}));        // NUL is a control
}

TEST(SplitWords, MaxTokensCountsEveryWord) {
  EXPECT_EQ(Split("a b c d e", CjkMode::kCharacters, 3), (Strings{"a", "b", "c"}));
  EXPECT_EQ(Split("a, b. c", CjkMode::kCharacters, 2), (Strings{"a", "b"}));
  EXPECT_EQ(Split("\xE6\x9D\xB1\xE4\xBA\xAC x", CjkMode::kCharacters, 1), Strings{"\xE6\x9D\xB1"});
  EXPECT_EQ(Split("a b", CjkMode::kCharacters, 0), (Strings{"a", "b"}));
}

TEST(Tokenizer, ExactThenFoldedThenStripped) {
  ModelContents c = Contents({"The", "the", "cat", "caf\xC3\xA9", "naive", "strasse", "\xCF\x83\xCE\xBF\xCF\x86\xCE\xBF\xCF\x83",
                              "\xD0\xBC\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0", "istanbul"});
  c.tokenizer.fold_case = true;
  c.tokenizer.strip_accents = true;
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "The THE the Cat sat"),
            (Strings{"The:exact:The", "THE:folded:the", "the:exact:the", "Cat:folded:cat", "sat:unknown:-"}));
  EXPECT_EQ(Analyzed(*m, "Caf\xC3\xA9 CAF\xC3\x89 Cafe NA\xC3\x8FVE"),
            (Strings{"Caf\xC3\xA9:folded:caf\xC3\xA9", "CAF\xC3\x89:folded:caf\xC3\xA9", "Cafe:unknown:-",
                     "NA\xC3\x8FVE:stripped:naive"}));
  EXPECT_EQ(Analyzed(*m, "Stra\xC3\x9F" "e STRASSE"), (Strings{"Stra\xC3\x9F" "e:folded:strasse", "STRASSE:folded:strasse"}));
  // Greek: ΣΟΦΟΣ and σοφος both fold to σοφοσ (final sigma folds to σ).
  EXPECT_EQ(Analyzed(*m, "\xCE\xA3\xCE\x9F\xCE\xA6\xCE\x9F\xCE\xA3 \xCF\x83\xCE\xBF\xCF\x86\xCE\xBF\xCF\x82"),
            (Strings{"\xCE\xA3\xCE\x9F\xCE\xA6\xCE\x9F\xCE\xA3:folded:\xCF\x83\xCE\xBF\xCF\x86\xCE\xBF\xCF\x83",
                     "\xCF\x83\xCE\xBF\xCF\x86\xCE\xBF\xCF\x82:folded:\xCF\x83\xCE\xBF\xCF\x86\xCE\xBF\xCF\x83"}));
  EXPECT_EQ(Analyzed(*m, "\xD0\x9C\xD0\x9E\xD0\xA1\xD0\x9A\xD0\x92\xD0\x90"),  // МОСКВА
            Strings{"\xD0\x9C\xD0\x9E\xD0\xA1\xD0\x9A\xD0\x92\xD0\x90:folded:\xD0\xBC\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0"});
  // Turkish: İ folds to i + U+0307 (found once stripped); I folds to i; dotless ı stays ı.
  EXPECT_EQ(Analyzed(*m, "\xC4\xB0stanbul ISTANBUL \xC4\xB1stanbul"),
            (Strings{"\xC4\xB0stanbul:stripped:istanbul", "ISTANBUL:folded:istanbul", "\xC4\xB1stanbul:unknown:-"}));
  // Decomposed accents (e + U+0301) are one word, found once stripped.
  EXPECT_EQ(Analyzed(*m, "nai\xCC\x88ve"), Strings{"nai\xCC\x88ve:stripped:naive"});
}

// No vocabulary word has a capital, so an ASCII word with one is looked up in lower case first: a word
// of up to 8 bytes folded in its head (one load when 8 bytes of the text follow its start, else byte
// by byte), a longer one in a buffer. Each length 1-12, with digits, inside the text and at its end.
TEST(Tokenizer, LowerCaseFirstForEveryWordLength) {
  const std::string letters = "r2d2covid19x";
  Strings vocabulary, upper;
  for (size_t n = 1; n <= letters.size(); ++n) {
    vocabulary.push_back(letters.substr(0, n));
    std::string w = letters.substr(0, n);
    for (size_t i = 0; i < n; i += 2) w[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[i])));
    upper.push_back(w);
  }
  auto m = BuildModel(Contents(vocabulary));
  ASSERT_TRUE(m);
  for (size_t n = 1; n <= letters.size(); ++n) {
    const std::string& w = upper[n - 1];
    const std::string want = w + ":folded:" + vocabulary[n - 1];
    EXPECT_EQ(Analyzed(*m, w), Strings{want}) << "alone";
    EXPECT_EQ(Analyzed(*m, w + " r2 and more text after it"),
              (Strings{want, "r2:exact:r2", "and:unknown:-", "more:unknown:-", "text:unknown:-", "after:unknown:-", "it:unknown:-"}));
    EXPECT_EQ(Analyzed(*m, "x " + w), (Strings{"x:unknown:-", want})) << "at the end";
    std::string miss = w;
    miss[n - 1] = miss[n - 1] == 'Z' ? 'Y' : 'Z';
    EXPECT_EQ(Analyzed(*m, miss + " r2"), (Strings{miss + ":unknown:-", "r2:exact:r2"}));
  }
}

TEST(Tokenizer, FoldingAndStrippingAreOptional) {
  ModelContents c = Contents({"the", "naive", "caf\xC3\xA9"});
  c.tokenizer.fold_case = false;
  c.tokenizer.strip_accents = false;
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "The the na\xC3\xAFve"), (Strings{"The:unknown:-", "the:exact:the", "na\xC3\xAFve:unknown:-"}));
  c.tokenizer.strip_accents = true;  // strips the word as written when folding is off
  m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "na\xC3\xAFve NA\xC3\x8FVE"), (Strings{"na\xC3\xAFve:stripped:naive", "NA\xC3\x8FVE:unknown:-"}));
}

TEST(Tokenizer, ReportsByteRangesInTheOriginalText) {
  ModelContents c = Contents({"ab", "\xEF\xBF\xBD", "\xE6\x9D\xB1", "\xF0\x9F\x98\x80"});
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  Tokenizer tokenizer(*m);
  std::vector<Token> tokens;
  const std::string text = "  ab\xFF\xE6\x9D\xB1, \xF0\x9F\x98\x80x";
  tokenizer.Analyze(text, &tokens);
  ASSERT_EQ(tokens.size(), 5u);
  const uint32_t want[][2] = {{2, 4}, {4, 5}, {5, 8}, {10, 14}, {14, 15}};
  for (size_t i = 0; i < tokens.size(); ++i) {
    EXPECT_EQ(tokens[i].begin, want[i][0]) << i;
    EXPECT_EQ(tokens[i].end, want[i][1]) << i;
  }
  EXPECT_EQ(tokens[1].id, m->find("\xEF\xBF\xBD"));  // the invalid byte reads as U+FFFD
  EXPECT_EQ(tokens[4].match, Match::kUnknown);
  tokens.clear();
  tokenizer.Analyze("", &tokens);
  EXPECT_TRUE(tokens.empty());
  std::vector<uint32_t> ids;
  tokenizer.Encode("", &ids);
  tokenizer.Encode(" ,.; ", &ids);
  EXPECT_TRUE(ids.empty());
}

TEST(Tokenizer, MaxTokensCountsKnownAndUnknownWords) {
  ModelContents c = Contents({"a", "b", "c", "d"});
  c.tokenizer.max_tokens = 3;
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "a b c d"), (Strings{"a:exact:a", "b:exact:b", "c:exact:c"}));
  EXPECT_EQ(Analyzed(*m, "x a, y b c d"), (Strings{"x:unknown:-", "a:exact:a", "y:unknown:-"}));
}

// WordPiece pieces una|ffa|ble for "unaffable" (greedy: there is no "unaf", no "##ffable").
SubwordVocab TestWordPiece(bool lowercase) {
  SubwordVocab v;
  v.kind = SubwordKind::kWordPiece;
  v.pieces = {"un", "una", "Una", "##ffa", "##ble", "##ff", "##able", "a", "##a"};
  v.lowercase = lowercase;
  return v;
}

TEST(Tokenizer, PrefixFallbackWithWordPiece) {
  ModelContents c = Contents({"una", "un"});
  c.tokenizer.subword = TestWordPiece(true);
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->subword().enabled());
  // Prefixes tried: "unaffa", then "una" (found). "un" is no piece boundary, so it is never tried.
  EXPECT_EQ(Analyzed(*m, "unaffable UNAFFABLE"), (Strings{"unaffable:prefix:una", "UNAFFABLE:prefix:una"}));
  EXPECT_EQ(Analyzed(*m, "una"), Strings{"una:exact:una"});
  EXPECT_EQ(Analyzed(*m, "unax"), Strings{"unax:unknown:-"});   // cannot be split: [UNK]
  EXPECT_EQ(Analyzed(*m, "unable"), Strings{"unable:prefix:una"});  // una|ble
  // The longest prefix wins.
  c = Contents({"una", "unaffa"});
  c.tokenizer.subword = TestWordPiece(true);
  m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "unaffable"), Strings{"unaffable:prefix:unaffa"});
  // A cased teacher: the prefix "Una" is then looked up exactly, folded ("una"), stripped.
  c = Contents({"una"});
  c.tokenizer.subword = TestWordPiece(false);
  m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "Unaffable"), Strings{"Unaffable:prefix:una"});
}

// A prefix that is not ASCII is looked up folded too: "Éta" (a cased teacher's first piece) finds
// "éta". A prefix wrongly taken for ASCII would be looked up as written only, and found nothing.
TEST(Tokenizer, PrefixFallbackFoldsAPrefixThatIsNotAscii) {
  ModelContents c = Contents({"éta"});
  c.tokenizer.subword.kind = SubwordKind::kWordPiece;
  c.tokenizer.subword.pieces = {"Éta", "##gère"};
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "Étagère"), Strings{"Étagère:prefix:éta"});
}

TEST(Tokenizer, PrefixFallbackSkipsVeryLongWords) {
  ModelContents c = Contents({"a"});
  c.tokenizer.subword = TestWordPiece(true);
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, std::string(100, 'a')), Strings{std::string(100, 'a') + ":prefix:a"});
  EXPECT_EQ(Analyzed(*m, std::string(101, 'a')), Strings{std::string(101, 'a') + ":unknown:-"});
}

SubwordVocab TestUnigram() {
  SubwordVocab v;
  v.kind = SubwordKind::kUnigram;
  const std::vector<std::pair<std::string, float>> scored = {
      {kWordStart + "play", -2}, {"ing", -2}, {kWordStart + "pla", -3}, {"ying", -3}, {"s", -3}, {kWordStart, -1},
      {"x", -4}, {"y", -4}, {"z", -4}};
  for (const auto& [piece, score] : scored) {
    v.pieces.push_back(piece);
    v.scores.push_back(score);
  }
  v.lowercase = true;
  return v;
}

TEST(Tokenizer, PrefixFallbackWithUnigram) {
  // "playings": ▁play|ing|s = -7 beats ▁pla|ying|s = -9, so the prefixes are "playing", then "play".
  ModelContents c = Contents({"play", "pla", "x"});
  c.tokenizer.subword = TestUnigram();
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "playings Playings"), (Strings{"playings:prefix:play", "Playings:prefix:play"}));
  // "xyz": ▁|x|y|z; the bare ▁ is no prefix; "xy" is unknown, "x" found.
  EXPECT_EQ(Analyzed(*m, "xyz"), Strings{"xyz:prefix:x"});
  c = Contents({"play", "playing"});
  c.tokenizer.subword = TestUnigram();
  m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "playings"), Strings{"playings:prefix:playing"});
  EXPECT_EQ(Analyzed(*m, "qqq"), Strings{"qqq:unknown:-"});  // unknown pieces only: no prefix is a word
}

// The thread's cache of resolved unknown words (core/src/unknown_cache.h): more distinct unknown
// words than it holds, words longer than it keeps, and two models in turn (each entry answers for the
// model it was filled for only, and both models' entries stay). Vocabulary: every string of 1 to `longest` letters x, y, z; an
// unknown word of 7 or 8 letters splits ▁|x|y|z... (single-letter pieces), so its prefix is its
// first `longest` letters.
// Every string of `len` letters x, y, z.
Strings Letters(size_t len) {
  Strings out = {""};
  for (size_t i = 0; i < len; ++i) {
    Strings next;
    for (const std::string& w : out) {
      for (char c : {'x', 'y', 'z'}) next.push_back(w + c);
    }
    out = std::move(next);
  }
  return out;
}

TEST(Tokenizer, UnknownWordsAreRememberedPerModel) {
  auto model_up_to = [](size_t longest) {
    Strings words;
    for (size_t len = 1; len <= longest; ++len) {
      const Strings some = Letters(len);
      words.insert(words.end(), some.begin(), some.end());
    }
    ModelContents c = Contents(words);
    c.tokenizer.subword = TestUnigram();
    return BuildModel(c);
  };
  auto six = model_up_to(6), three = model_up_to(3);
  ASSERT_TRUE(six && three);
  Strings unknown = Letters(7), eight = Letters(8);  // 3^7 + 3^8 = 8,748: more than the cache's 8,192
  unknown.insert(unknown.end(), eight.begin(), eight.end());
  unknown.push_back("xyzxyzxyzxyzxyzxyzxyzxyzxyz");  // 27 bytes: longer than a cached word
  auto resolve = [](const Model& m, const std::string& word) {
    Tokenizer tokenizer(m);  // a tokenizer per word, as the C API makes one per call
    std::vector<Token> tokens;
    tokenizer.Analyze(word, &tokens);
    std::vector<uint32_t> ids;
    tokenizer.Encode(word, &ids);
    EXPECT_EQ(tokens.size(), 1u);
    EXPECT_EQ(ids.size(), tokens.size() == 1 && tokens[0].id >= 0 ? 1u : 0u) << word;
    if (tokens.size() != 1) return std::string("?");
    if (tokens[0].match == Match::kUnknown) return std::string("-");
    return tokens[0].match == Match::kPrefix ? std::string(m.word(tokens[0].id)) : std::string("?");
  };
  Tokenizer::ForgetUnknownWords();
  for (int pass = 0; pass < 2; ++pass) EXPECT_EQ(resolve(*six, "qqqq"), "-");  // no prefix found: cached too
  for (int pass = 0; pass < 2; ++pass) {  // the second pass finds many in the cache
    for (const std::string& w : unknown) ASSERT_EQ(resolve(*six, w), w.substr(0, 6)) << w << " pass " << pass;
  }
  for (size_t i = 0; i < 200; ++i) {  // the models in turn: each answers with its own prefixes
    const std::string& w = unknown[i * 37 % unknown.size()];
    ASSERT_EQ(resolve(*six, w), w.substr(0, 6)) << w;
    ASSERT_EQ(resolve(*three, w), w.substr(0, 3)) << w;
    ASSERT_EQ(resolve(*six, w), w.substr(0, 6)) << w;
  }
  // Both models' entries stay side by side: a word just resolved with each is in the cache for each,
  // with that model's row; a model that never saw it finds nothing.
  auto four = model_up_to(4);
  ASSERT_TRUE(four);
  const std::string w = unknown[42];
  resolve(*six, w);
  resolve(*three, w);
  UnknownCache& cache = UnknownCache::ThisThread();
  int64_t id = -2;
  ASSERT_TRUE(cache.Find(*six, w, &id));
  EXPECT_EQ(id, six->find(w.substr(0, 6)));
  ASSERT_TRUE(cache.Find(*three, w, &id));
  EXPECT_EQ(id, three->find(w.substr(0, 3)));
  EXPECT_FALSE(cache.Find(*four, w, &id));
  Tokenizer::ForgetUnknownWords();
  EXPECT_FALSE(cache.Find(*six, w, &id));
}

// Four words that share a set all stay until a fifth comes, which replaces the oldest. (With two
// ways, three words of one set taken in turn missed every time: STS-B's ~1,100 distinct unknown
// words have ~35 such sets.)
TEST(Tokenizer, UnknownWordCacheKeepsFourWordsOfASet) {
  auto m = BuildModel(Contents({"a", "b"}));
  ASSERT_TRUE(m);
  Strings same_set;
  for (int i = 0; same_set.size() < 5; ++i) {
    const std::string w = "w" + std::to_string(i);
    if (UnknownCache::SetOf(*m, w) == UnknownCache::SetOf(*m, "w0")) same_set.push_back(w);
  }
  Tokenizer::ForgetUnknownWords();
  UnknownCache& cache = UnknownCache::ThisThread();
  for (size_t i = 0; i < 4; ++i) cache.Put(*m, same_set[i], static_cast<int64_t>(i));
  int64_t id = -2;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < 4; ++i) {
      ASSERT_TRUE(cache.Find(*m, same_set[i], &id)) << same_set[i];
      EXPECT_EQ(id, static_cast<int64_t>(i));
    }
  }
  cache.Put(*m, same_set[4], -1);
  EXPECT_FALSE(cache.Find(*m, same_set[0], &id));
  for (size_t i = 1; i < 5; ++i) EXPECT_TRUE(cache.Find(*m, same_set[i], &id)) << same_set[i];
  EXPECT_EQ(id, -1);
  Tokenizer::ForgetUnknownWords();
}

// 東京タワーに行く as one CJK run, segmented by a unigram teacher.
TEST(Tokenizer, CjkSubwords) {
  const std::string tokyo = "\xE6\x9D\xB1\xE4\xBA\xAC", tower = "\xE3\x82\xBF\xE3\x83\xAF\xE3\x83\xBC",
                    ni = "\xE3\x81\xAB", iku = "\xE8\xA1\x8C\xE3\x81\x8F";
  ModelContents c = Contents({tokyo, tower, iku, "I"});
  c.tokenizer.cjk = CjkMode::kSubwords;
  SubwordVocab& v = c.tokenizer.subword;
  v.kind = SubwordKind::kUnigram;
  v.pieces = {kWordStart + tokyo, tower, kWordStart + "\xE6\x9D\xB1", "\xE4\xBA\xAC", ni, iku, kWordStart};
  v.scores = {-2, -3, -4, -4, -2, -3, -1};
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  // ▁東京|タワー|に|行く = -10; ▁東|京|... = -8 - 8 = -16. に is unknown: no prefix fallback for pieces.
  EXPECT_EQ(Analyzed(*m, tokyo + tower + ni + iku),
            (Strings{tokyo + ":exact:" + tokyo, tower + ":exact:" + tower, ni + ":unknown:-", iku + ":exact:" + iku}));
  EXPECT_EQ(Analyzed(*m, "I visited " + tokyo + tower + "."),
            (Strings{"I:exact:I", "visited:unknown:-", tokyo + ":exact:" + tokyo, tower + ":exact:" + tower}));
  // The trainer's view: SplitWords with the model's subword tokenizer gives the same words.
  Strings words;
  SplitWords(tokyo + tower + ni + iku, m->tokenizer_config(), &m->subword(), &words);
  EXPECT_EQ(words, (Strings{tokyo, tower, ni, iku}));
  // max_tokens counts pieces.
  words.clear();
  TokenizerConfig limited = m->tokenizer_config();
  limited.max_tokens = 2;
  SplitWords(tokyo + tower + ni + iku, limited, &m->subword(), &words);
  EXPECT_EQ(words, (Strings{tokyo, tower}));
}

TEST(Tokenizer, CjkSubwordsMapPiecesBackToOriginalCharacters) {
  // U+2F800 (4 bytes) is a compatibility ideograph that the teacher's accent stripping turns into
  // U+4E3D (3 bytes): pieces are found in the normalised run but reported on the original bytes.
  const std::string compat = "\xF0\xAF\xA0\x80", unified = "\xE4\xB8\xBD", kyo = "\xE4\xBA\xAC";
  ModelContents c = Contents({compat, kyo});
  c.tokenizer.cjk = CjkMode::kSubwords;
  SubwordVocab& v = c.tokenizer.subword;
  v.kind = SubwordKind::kUnigram;
  v.pieces = {kWordStart + unified, kyo};
  v.scores = {-1, -1};
  v.strip_accents = true;
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, compat + kyo), (Strings{compat + ":exact:" + compat, kyo + ":exact:" + kyo}));
}

TEST(Tokenizer, CjkSubwordsWithWordPieceAndFallbackToCharacters) {
  const std::string tokyo = "\xE6\x9D\xB1\xE4\xBA\xAC", to = "\xE6\x9D\xB1", kyo = "\xE4\xBA\xAC";
  ModelContents c = Contents({tokyo, to, kyo});
  c.tokenizer.cjk = CjkMode::kSubwords;
  c.tokenizer.subword.kind = SubwordKind::kWordPiece;
  c.tokenizer.subword.pieces = {tokyo, to, "##" + kyo};
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, tokyo + "," + kyo + to), (Strings{tokyo + ":exact:" + tokyo, kyo + ":exact:" + kyo,
                                                          to + ":exact:" + to}));  // 京東: [UNK] -> characters
  c.tokenizer.cjk = CjkMode::kCharacters;
  m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, tokyo), (Strings{to + ":exact:" + to, kyo + ":exact:" + kyo}));
  c.tokenizer.cjk = CjkMode::kNone;
  m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "x" + tokyo), Strings{"x" + tokyo + ":unknown:-"});
}

// ---- CjkMode::kBigrams and kLongest (docs/TOKENIZER.md, "CJK runs") ----

const std::string kR = "\xEF\xBF\xBD";  // U+FFFD, the word of an invalid byte

TEST(SplitWords, CjkBigrams) {
  EXPECT_EQ(Split("我喜欢学习中文", CjkMode::kBigrams),
            (Strings{"我", "我喜", "喜", "喜欢", "欢", "欢学", "学", "学习", "习", "习中", "中", "中文", "文"}));
  EXPECT_EQ(Split("東京タワーに行きました", CjkMode::kBigrams),
            (Strings{"東", "東京", "京", "京タ", "タ", "タワ", "ワ", "ワー", "ー", "ーに", "に", "に行", "行", "行き", "き",
                     "きま", "ま", "まし", "し", "した", "た"}));
  // A run of one character is that character; runs end at anything that is not CJK.
  EXPECT_EQ(Split("猫", CjkMode::kBigrams), Strings{"猫"});
  EXPECT_EQ(Split("東京、大阪。", CjkMode::kBigrams), (Strings{"東", "東京", "京", "大", "大阪", "阪"}));
  EXPECT_EQ(Split("iPhone 15を買った", CjkMode::kBigrams),
            (Strings{"iPhone", "15", "を", "を買", "買", "買っ", "っ", "った", "た"}));
  // No run at all.
  EXPECT_EQ(Split("", CjkMode::kBigrams), Strings{});
  EXPECT_EQ(Split("「」。、 ", CjkMode::kBigrams), Strings{});
  // Invalid bytes split the run (each is a U+FFFD token): no pair reaches across them.
  EXPECT_EQ(Split("東京\xFF大阪", CjkMode::kBigrams), (Strings{"東", "東京", "京", kR, "大", "大阪", "阪"}));
  EXPECT_EQ(Split("東\xE4\xBA大", CjkMode::kBigrams), (Strings{"東", kR, kR, "大"}));  // 京 cut short
  // max_tokens counts pairs too.
  EXPECT_EQ(Split("東京タワー", CjkMode::kBigrams, 2), (Strings{"東", "東京"}));
  EXPECT_EQ(Split("東京タワー", CjkMode::kBigrams, 3), (Strings{"東", "東京", "京"}));
}

// The trainer's API: SplitWords in kLongest mode with its own lexicon.
TEST(SplitWords, CjkLongestWithALexicon) {
  std::set<std::string> lexicon = {"喜欢", "学习", "习中", "中文", "学习中文化"};
  Strings asked;
  const KnownWord known = [&](std::string_view word) {
    asked.emplace_back(word);
    return lexicon.count(std::string(word)) > 0;
  };
  TokenizerConfig config;
  config.cjk = CjkMode::kLongest;
  auto split = [&](std::string_view text, const KnownWord& k) {
    Strings words;
    SplitWords(text, config, nullptr, &words, k);
    return words;
  };
  // 习中 is never tried: 学习 was taken first. 我 is no word, so it is one character.
  EXPECT_EQ(split("我喜欢学习中文", known), (Strings{"我", "喜欢", "学习", "中文"}));
  // Longest first, from 2 characters up to the end of the run; single characters are never asked.
  asked.clear();
  EXPECT_EQ(split("我喜欢。", known), (Strings{"我", "喜欢"}));
  EXPECT_EQ(asked, (Strings{"我喜欢", "我喜", "喜欢"}));
  // Without a lexicon every character is a word (kCharacters).
  EXPECT_EQ(split("我喜欢学习中文", nullptr), (Strings{"我", "喜", "欢", "学", "习", "中", "文"}));
  EXPECT_EQ(Split("我喜欢", CjkMode::kLongest), (Strings{"我", "喜", "欢"}));
  // At most 8 characters: a 9- or 10-character entry is never matched.
  lexicon = {"一二三四五六七八九十", "一二三四五六七八九", "九十"};
  EXPECT_EQ(split("一二三四五六七八九十", known), (Strings{"一", "二", "三", "四", "五", "六", "七", "八", "九十"}));
  lexicon.insert("一二三四五六七八");
  EXPECT_EQ(split("一二三四五六七八九十", known), (Strings{"一二三四五六七八", "九十"}));
  // Mixed scripts, empty runs, invalid bytes inside a run.
  lexicon = {"買った", "東京", "大阪", "東京大阪"};
  EXPECT_EQ(split("iPhone 15を買った", known), (Strings{"iPhone", "15", "を", "買った"}));
  EXPECT_EQ(split("", known), Strings{});
  EXPECT_EQ(split("「」。", known), Strings{});
  EXPECT_EQ(split("東京大阪", known), Strings{"東京大阪"});
  EXPECT_EQ(split("東京\xFF大阪", known), (Strings{"東京", kR, "大阪"}));
  EXPECT_EQ(split("東京\xE5\xA4大阪", known), (Strings{"東京", kR, kR, "大阪"}));  // a character cut short
  // max_tokens counts words.
  config.max_tokens = 1;
  EXPECT_EQ(split("東京大阪 x", known), Strings{"東京大阪"});
}

TEST(SplitWords, RangesSayWhereEachWordIs) {
  TokenizerConfig config;
  config.cjk = CjkMode::kBigrams;
  const std::string text = "a 東京\xFF";
  Strings words;
  std::vector<WordRange> ranges;
  SplitWords(text, config, nullptr, &words);
  SplitWordRanges(text, config, nullptr, &ranges);
  EXPECT_EQ(words, (Strings{"a", "東", "東京", "京", kR}));
  ASSERT_EQ(ranges.size(), words.size());
  const uint32_t want[][2] = {{0, 1}, {2, 5}, {2, 8}, {5, 8}, {8, 9}};  // pairs overlap their characters
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ(ranges[i].begin, want[i][0]) << i;
    EXPECT_EQ(ranges[i].end, want[i][1]) << i;
  }
  config.cjk = CjkMode::kLongest;
  config.max_tokens = 2;
  ranges.clear();
  SplitWordRanges(text, config, nullptr, &ranges, [](std::string_view w) { return w == "東京"; });
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[1].begin, 2u);
  EXPECT_EQ(ranges[1].end, 8u);
}

std::string Known(const std::string& word) { return word + ":exact:" + word; }
std::string Unknown(const std::string& text) { return text + ":unknown:-"; }

std::unique_ptr<Model> CjkModel(const Strings& words, CjkMode cjk, bool strip_accents = false) {
  ModelContents c = Contents(words);
  c.tokenizer.cjk = cjk;
  c.tokenizer.strip_accents = strip_accents;
  return BuildModel(c);
}

TEST(Tokenizer, CjkBigrams) {
  auto m = CjkModel({"我", "喜欢", "学", "学习", "中", "中文", "文"}, CjkMode::kBigrams);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "我喜欢学习中文"),
            (Strings{Known("我"), Unknown("我喜"), Unknown("喜"), Known("喜欢"), Unknown("欢"), Unknown("欢学"), Known("学"),
                     Known("学习"), Unknown("习"), Unknown("习中"), Known("中"), Known("中文"), Known("文")}));
  m = CjkModel({"iphone", "15", "を", "買", "買っ", "った"}, CjkMode::kBigrams);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "iPhone 15を買った"),
            (Strings{"iPhone:folded:iphone", Known("15"), Known("を"), Unknown("を買"), Known("買"), Known("買っ"),
                     Unknown("っ"), Known("った"), Unknown("た")}));
  EXPECT_EQ(Analyzed(*m, "買\xFF買っ"), (Strings{Known("買"), Unknown("\xFF"), Known("買"), Known("買っ"), Unknown("っ")}));
  EXPECT_EQ(Analyzed(*m, ""), Strings{});
}

TEST(Tokenizer, CjkBigramPairsGetNoSubwordPrefix) {
  // With a subword vocabulary, an unknown pair would otherwise fall back to its first character,
  // counting it twice; pairs are looked up as they are (step 2) only.
  ModelContents c = Contents({"東"});
  c.tokenizer.cjk = CjkMode::kBigrams;
  c.tokenizer.subword.kind = SubwordKind::kWordPiece;
  c.tokenizer.subword.pieces = {"東", "##京"};
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "東京"), (Strings{Known("東"), Unknown("東京"), Unknown("京")}));
  c.tokenizer.cjk = CjkMode::kNone;  // the same word in none mode: step 3 finds its prefix
  m = BuildModel(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "東京"), Strings{"東京:prefix:東"});
}

TEST(Tokenizer, CjkLongest) {
  auto m = CjkModel({"東京", "東京タワー", "タワー", "に", "行き", "ました", "行"}, CjkMode::kLongest);
  ASSERT_TRUE(m);
  // 東京タワー beats 東京; に行… and 行きました are no words, 行き beats 行.
  EXPECT_EQ(Analyzed(*m, "東京タワーに行きました"), (Strings{Known("東京タワー"), Known("に"), Known("行き"), Known("ました")}));
  m = CjkModel({"我", "喜欢", "学习", "习中", "中文"}, CjkMode::kLongest);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "我喜欢学习中文"), (Strings{Known("我"), Known("喜欢"), Known("学习"), Known("中文")}));
  EXPECT_EQ(Analyzed(*m, "他喜欢中文。"), (Strings{Unknown("他"), Known("喜欢"), Known("中文")}));
  m = CjkModel({"iphone", "15", "を", "買った"}, CjkMode::kLongest);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "iPhone 15を買った"), (Strings{"iPhone:folded:iphone", Known("15"), Known("を"), Known("買った")}));
  EXPECT_EQ(Analyzed(*m, "買っ\xFF" "た"), (Strings{Unknown("買"), Unknown("っ"), Unknown("\xFF"), Unknown("た")}));
  EXPECT_EQ(Analyzed(*m, ""), Strings{});
  // A run longer than 8 characters: the 9-character word is never matched, the 8-character one is.
  m = CjkModel({"東京タワーに行きま", "東京タワーに行き"}, CjkMode::kLongest);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "東京タワーに行きました"),
            (Strings{Known("東京タワーに行き"), Unknown("ま"), Unknown("し"), Unknown("た")}));
  // Candidates are looked up with step 2, like every word: with accent stripping が finds か.
  m = CjkModel({"かっこう", "に"}, CjkMode::kLongest, true);
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "がっこうに"), (Strings{"がっこう:stripped:かっこう", Known("に")}));
}

TEST(Tokenizer, CjkLongestSplitWordsAgreesWithAnalyze) {
  // The trainer's view of a model: SplitWords with the model's vocabulary as lexicon.
  auto m = CjkModel({"東京", "東京タワー", "に", "行き", "ました", "iphone"}, CjkMode::kLongest);
  ASSERT_TRUE(m);
  const std::string text = "iPhoneで東京タワーに行きました。東京\xFF行きます";
  Strings words;
  SplitWords(text, m->tokenizer_config(), &m->subword(), &words, [&](std::string_view w) { return m->find(w) >= 0; });
  Tokenizer tokenizer(*m);
  std::vector<Token> tokens;
  tokenizer.Analyze(text, &tokens);
  ASSERT_EQ(words.size(), tokens.size());
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string covered(text.substr(tokens[i].begin, tokens[i].end - tokens[i].begin));
    EXPECT_EQ(words[i], covered == "\xFF" ? kR : covered);
  }
  EXPECT_EQ(words, (Strings{"iPhone", "で", "東京タワー", "に", "行き", "ました", "東京", kR, "行き", "ま", "す"}));
}

TEST(Tokenizer, SplitWordsAgreesWithAnalyze) {
  ModelContents c = Contents({"hello"});
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  const std::string text = "Hello, w\xC3\xB6rld! \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xF0\x9F\x98\x80 don't x\xE2\x80\x8By";
  Strings words;
  SplitWords(text, m->tokenizer_config(), &m->subword(), &words);
  Tokenizer tokenizer(*m);
  std::vector<Token> tokens;
  tokenizer.Analyze(text, &tokens);
  ASSERT_EQ(words.size(), tokens.size());
  for (size_t i = 0; i < words.size(); ++i) EXPECT_EQ(words[i], text.substr(tokens[i].begin, tokens[i].end - tokens[i].begin));
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Linear time on large inputs; generous bounds (sanitizer and debug builds are slower).
TEST(Tokenizer, LargeInputsAreFast) {
  ModelContents c = Contents({"the", "quick", "brown", "fox", "a", "caf\xC3\xA9"});
  c.tokenizer.subword = TestWordPiece(true);
  c.tokenizer.strip_accents = true;
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  Tokenizer tokenizer(*m);
  std::vector<uint32_t> ids;

  std::string text;
  while (text.size() < (4u << 20)) text += "The quick brown fox jumps over the lazy dog, caf\xC3\xA9 na\xC3\xAFve \xE6\x97\xA5\xE6\x9C\xAC! ";
  auto start = std::chrono::steady_clock::now();
  tokenizer.Encode(text, &ids);
  EXPECT_LT(Seconds(start), 5.0);
  EXPECT_GT(ids.size(), 300000u);

  const std::string word(1 << 20, 'a');  // one 1 MiB word: no quadratic subword fallback
  start = std::chrono::steady_clock::now();
  std::vector<Token> tokens;
  tokenizer.Analyze(word, &tokens);
  EXPECT_LT(Seconds(start), 2.0);
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_EQ(tokens[0].match, Match::kUnknown);

  std::string accented;  // one 1 MiB non-ASCII word (fold and strip paths)
  while (accented.size() < (1u << 20)) accented += "\xC3\x89";
  start = std::chrono::steady_clock::now();
  tokens.clear();
  tokenizer.Analyze(accented, &tokens);
  EXPECT_LT(Seconds(start), 2.0);
  EXPECT_EQ(tokens.size(), 1u);

  std::string garbage;  // 1 MiB of invalid bytes: one U+FFFD token each
  for (int i = 0; i < (1 << 20); ++i) garbage.push_back(static_cast<char>(0x80 + (i % 64)));
  start = std::chrono::steady_clock::now();
  tokens.clear();
  tokenizer.Analyze(garbage, &tokens);
  EXPECT_LT(Seconds(start), 2.0);
  EXPECT_EQ(tokens.size(), garbage.size());
}

TEST(Tokenizer, LongCjkRunWithSubwordsIsLinear) {
  ModelContents c = Contents({"\xE6\x97\xA5\xE6\x9C\xAC"});
  c.tokenizer.cjk = CjkMode::kSubwords;
  SubwordVocab& v = c.tokenizer.subword;
  v.kind = SubwordKind::kUnigram;
  v.pieces = {"\xE6\x97\xA5\xE6\x9C\xAC", "\xE6\x97\xA5", "\xE6\x9C\xAC", kWordStart};
  v.scores = {-1, -3, -3, -1};
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  std::string run;
  while (run.size() < (1u << 20)) run += "\xE6\x97\xA5\xE6\x9C\xAC";  // 日本 x 174763, no separators
  Tokenizer tokenizer(*m);
  std::vector<uint32_t> ids;
  const auto start = std::chrono::steady_clock::now();
  tokenizer.Encode(run, &ids);
  EXPECT_LT(Seconds(start), 2.0);
  EXPECT_EQ(ids.size(), run.size() / 6);
}

TEST(Tokenizer, LongCjkRunsWithBigramsAndLongestAreLinear) {
  std::string run;
  while (run.size() < (1u << 20)) run += "我喜欢学习中文";  // 1 MiB, no separators
  const size_t chars = run.size() / 3;
  auto m = CjkModel({"我", "喜欢", "学习", "中文", "文我"}, CjkMode::kLongest);
  ASSERT_TRUE(m);
  std::vector<uint32_t> ids;
  auto start = std::chrono::steady_clock::now();
  Tokenizer(*m).Encode(run, &ids);
  EXPECT_LT(Seconds(start), 2.0);
  EXPECT_EQ(ids.size(), chars / 7 * 4);  // 我|喜欢|学习|中文, over and over
  m = CjkModel({"我", "喜欢", "学习", "中文", "文我"}, CjkMode::kBigrams);
  ASSERT_TRUE(m);
  ids.clear();
  start = std::chrono::steady_clock::now();
  Tokenizer(*m).Encode(run, &ids);
  EXPECT_LT(Seconds(start), 2.0);
  EXPECT_EQ(ids.size(), chars / 7 * 5 - 1);  // 我 喜欢 学习 中文 文我 per repeat, no 文我 at the end
}

// Prints the tokenizer's own throughput on short English sentences (informational).
TEST(Tokenizer, Throughput) {
  Strings vocab;
  for (const char* w : {"the", "a", "of", "and", "to", "in", "is", "it", "that", "was", "for", "on", "with", "as", "he",
                        "she", "they", "cat", "dog", "sat", "mat", "quick", "brown", "fox", "jumps", "over", "lazy",
                        "man", "woman", "walks", "park", "today", "weather", "nice", "very", "good", "movie"}) {
    vocab.push_back(w);
  }
  ModelContents c = Contents(vocab);
  c.tokenizer.subword = TestWordPiece(true);
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  const Strings sentences = {"The cat sat on the mat.", "A man walks in the park today.",
                             "The quick brown fox jumps over the lazy dog!", "She thinks the movie was very good.",
                             "Is the weather nice today?", "They went to Paris with their friends."};
  Tokenizer tokenizer(*m);
  std::vector<uint32_t> ids;
  const int rounds = 200000;
  size_t total = 0, bytes = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < rounds; ++r) {
    for (const std::string& s : sentences) {
      ids.clear();
      tokenizer.Encode(s, &ids);
      total += ids.size();
      bytes += s.size();
    }
  }
  const double secs = Seconds(start);
  EXPECT_GT(total, 0u);
  std::printf("tokenizer: %.2f M sentences/s, %.0f MB/s (%zu ids)\n", rounds * sentences.size() / secs / 1e6,
              bytes / secs / 1e6, total);
}


// TokenUnits::kSubwordPieces (Model2Vec-style models): every word is split into pieces, each piece is
// a row looked up by its own text; punctuation characters are tokens too; unsplittable words are skipped.
ModelContents PieceContents(const Strings& rows, SubwordVocab vocab) {
  ModelContents c = Contents(rows);
  c.tokenizer.subword = std::move(vocab);
  c.tokenizer.units = TokenUnits::kSubwordPieces;
  return c;
}

TEST(Tokenizer, SubwordPiecesWithWordPiece) {
  SubwordVocab v;
  v.kind = SubwordKind::kWordPiece;
  v.pieces = {"[UNK]", "hello", "un", "##aff", "##able", "world", ",", "!", "##s"};
  v.lowercase = true;
  v.strip_accents = true;
  auto m = BuildModel(PieceContents({"hello", "un", "##aff", "##able", "world", ",", "!"}, v));
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "Hello, unaffable w\xC3\xB6rld!"),
            (Strings{"Hello:exact:hello", ",:exact:,", "un:exact:un", "aff:exact:##aff", "able:exact:##able",
                     "w\xC3\xB6rld:exact:world", "!:exact:!"}));
  // A word WordPiece cannot cover is skipped whole ([UNK]); a piece without a row is skipped alone.
  EXPECT_EQ(Analyzed(*m, "xyz worlds"), (Strings{"xyz:unknown:-", "world:exact:world", "s:unknown:-"}));
  // Encoding is the mean of the pieces' rows: "unaffable" = un + ##aff + ##able.
  std::vector<uint32_t> ids;
  Tokenizer(*m).Encode("unaffable", &ids);
  EXPECT_EQ(ids.size(), 3u);
}

TEST(Tokenizer, SubwordPiecesMaxTokensCountsKnownPieces) {
  SubwordVocab v;
  v.kind = SubwordKind::kWordPiece;
  v.pieces = {"a", "b", "##b"};
  ModelContents c = PieceContents({"a", "b", "##b"}, v);
  c.tokenizer.max_tokens = 3;
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  std::vector<uint32_t> ids;
  Tokenizer(*m).Encode("zz a bbb a", &ids);  // zz unknown, then a, b, ##b (3 known pieces): stop
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 1, 2}));
}

TEST(Tokenizer, SubwordPiecesWithUnigram) {
  // Each word is split as word_prefix + word, as a Metaspace pre-tokenizer does.
  auto m = BuildModel(PieceContents({kWordStart + "play", "ing", "s", kWordStart}, TestUnigram()));
  ASSERT_TRUE(m);
  EXPECT_EQ(Analyzed(*m, "Playings xyz"),
            (Strings{"Play:exact:" + kWordStart + "play", "ing:exact:ing", "s:exact:s", ":exact:" + kWordStart,
                     "x:unknown:-", "y:unknown:-", "z:unknown:-"}));
}

TEST(Tokenizer, SubwordPiecesNeedASubwordVocabulary) {
  ModelContents c = Contents({"a"});
  c.tokenizer.units = TokenUnits::kSubwordPieces;
  std::vector<uint8_t> bytes;
  EXPECT_EQ(WriteModel(c, WriteOptions(), &bytes).code(), StatusCode::kInvalidArgument);
  c.tokenizer.subword = TestWordPiece(true);
  c.tokenizer.cjk = CjkMode::kSubwords;
  EXPECT_EQ(WriteModel(c, WriteOptions(), &bytes).code(), StatusCode::kInvalidArgument);
  c.tokenizer.cjk = CjkMode::kCharacters;
  ASSERT_TRUE(WriteModel(c, WriteOptions(), &bytes).ok());
  uint32_t flags;
  std::memcpy(&flags, bytes.data() + 36, 4);
  EXPECT_EQ(flags & ~container::kSealFlags, 1u);  // header flag 1: older readers reject the file instead of misreading it
  std::unique_ptr<Model> m;
  ASSERT_TRUE(ReadModel(bytes.data(), bytes.size(), &m).ok());
  EXPECT_EQ(m->tokenizer_config().units, TokenUnits::kSubwordPieces);
  EXPECT_EQ(m->ToContents().tokenizer.units, TokenUnits::kSubwordPieces);
  flags &= ~container::kFlagSubwordPieces;
  std::memcpy(bytes.data() + 36, &flags, 4);
  EXPECT_EQ(ReadModel(bytes.data(), bytes.size(), &m).code(), StatusCode::kCorrupt);
}

// EncodeBatch looks words up a fixed distance behind their split, across text boundaries: it must
// give exactly each text's Encode, for empty texts, texts longer than that distance, max_tokens,
// unknown words (the subword fallback), CJK bigrams and subword-piece models.
TEST(Tokenizer, EncodeBatchEqualsEncodeOfEachText) {
  const Strings pool = {"play", "Play", "playings", "xyz", "qqq", "the", "THE", "caf\xC3\xA9", "我喜欢学习", "中文",
                        "\xFF", "a,b", "...", "  ", "ing", "x"};
  std::mt19937 rng(7);
  std::vector<std::string> texts;
  for (size_t i = 0; i < 300; ++i) {
    std::string text;
    const size_t words = i % 10 == 0 ? 0 : i % 7 == 0 ? 40 + rng() % 30 : rng() % 12;  // some empty, some long
    for (size_t w = 0; w < words; ++w) text += pool[rng() % pool.size()] + (rng() % 3 == 0 ? ", " : " ");
    texts.push_back(text);
  }
  auto check = [&](const ModelContents& c, const char* what) {
    auto m = BuildModel(c);
    ASSERT_TRUE(m) << what;
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{17}, texts.size()}) {
      std::vector<std::string_view> views(texts.begin(), texts.begin() + n);
      std::vector<uint32_t> ids = {99}, want;
      std::vector<size_t> offsets = {99}, want_offsets = {0};
      Tokenizer(*m).EncodeBatch(views.data(), n, &ids, &offsets);
      Tokenizer single(*m);
      for (std::string_view text : views) {
        single.Encode(text, &want);
        want_offsets.push_back(want.size());
      }
      EXPECT_EQ(ids, want) << what << ", " << n << " texts";
      EXPECT_EQ(offsets, want_offsets) << what << ", " << n << " texts";
    }
  };
  ModelContents words = Contents({"play", "the", "cafe", "我", "喜欢", "学习", "中", "x", "ing"});
  words.tokenizer.subword = TestUnigram();
  check(words, "words with a unigram fallback");
  words.tokenizer.max_tokens = 5;
  check(words, "max_tokens 5");
  words.tokenizer.max_tokens = 0;
  words.tokenizer.cjk = CjkMode::kBigrams;
  check(words, "CJK bigrams");
  check(PieceContents({kWordStart + "play", "ing", "s", kWordStart, "x"}, TestUnigram()), "subword pieces");
}

}  // namespace
}  // namespace swe

// The tokenizer's fast paths give what the plain rule gives: word slots with inline keys,
// batched and prefetched lookups, the uncased-vocabulary shortcut and the cache of unknown words.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/test_models.h"
#include "swe/tokenizer.h"

namespace swe {
namespace {

using testing::BuildModel;
using testing::RandomContents;

TEST(Lookup, FindsEveryWordAndNoNearMiss) {
  std::vector<std::string> words = {"a", "ab", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghij",
                                    std::string(300, 'x'), std::string(299, 'x') + "y", "caf\xC3\xA9"};
  for (int i = 0; i < 3000; ++i) words.push_back("w" + std::to_string(i * 7919));
  auto m = BuildModel(RandomContents(words, 4));
  ASSERT_TRUE(m);
  for (uint32_t i = 0; i < words.size(); ++i) EXPECT_EQ(m->find(words[i]), i) << words[i];
  for (const std::string& miss : {std::string("abc"), std::string("abcdefgi"), std::string("abcdefghik"),
                                  std::string("abcdefghi") + '\0', std::string(301, 'x'), std::string(300, 'y'),
                                  std::string(""), std::string("caf"), std::string("w1")}) {
    EXPECT_EQ(m->find(miss), -1) << miss;
  }
  EXPECT_FALSE(m->has_ascii_upper_words());
  auto cased = BuildModel(RandomContents({"us", "US"}, 4));
  ASSERT_TRUE(cased);
  EXPECT_TRUE(cased->has_ascii_upper_words());
  std::vector<Token> tokens;
  Tokenizer(*cased).Analyze("US Us", &tokens);
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens[0].match, Match::kExact);
  EXPECT_EQ(tokens[1].match, Match::kFolded);
}

// A long text tokenized at once (batches, the cache, its evictions) and word by word with a fresh
// tokenizer each time give the same tokens.
TEST(Lookup, BatchedAndCachedAgreeWithOneWordAtATime) {
  ModelContents c = RandomContents({"the", "cat", "ab", "abc", "q", "x1"}, 4);
  SubwordVocab& v = c.tokenizer.subword;
  v.kind = SubwordKind::kUnigram;
  v.pieces = {"\xE2\x96\x81", "\xE2\x96\x81" "ab", "\xE2\x96\x81" "q", "ab", "c", "q", "x", "1"};
  v.scores = {-1, -2, -2, -2, -3, -3, -3, -3};
  v.lowercase = true;
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  std::string text;
  std::vector<std::string> words;
  for (int i = 0; i < 3000; ++i) {  // > 1024 distinct unknown words, many repeated, some capitalised
    const std::string w = i % 3 == 0 ? "The" : i % 3 == 1 ? "abc" + std::to_string(i % 1500) : "Qx" + std::to_string(i % 7);
    words.push_back(w);
    text += w + (i % 10 == 0 ? ", " : " ");
  }
  Tokenizer batched(*m);
  std::vector<Token> all;
  batched.Analyze(text, &all);
  ASSERT_EQ(all.size(), words.size());
  for (size_t i = 0; i < words.size(); ++i) {
    std::vector<Token> one;
    Tokenizer(*m).Analyze(words[i], &one);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(all[i].id, one[0].id) << words[i];
    EXPECT_EQ(all[i].match, one[0].match) << words[i];
    EXPECT_EQ(text.substr(all[i].begin, all[i].end - all[i].begin), words[i]);
  }
  c.tokenizer.max_tokens = 50;
  auto limited = BuildModel(c);
  ASSERT_TRUE(limited);
  std::vector<Token> first;
  Tokenizer(*limited).Analyze(text, &first);
  ASSERT_EQ(first.size(), 50u);
  for (size_t i = 0; i < first.size(); ++i) EXPECT_EQ(first[i].id, all[i].id);
}

// The cache of unknown words keys words of up to 64 bytes: words of every length around that bound,
// and 2,000 words of one length (so that words share slots), half of them with a known prefix and
// half without, each seen twice by one tokenizer, agree with a fresh tokenizer per word.
TEST(Lookup, CachedUnknownWordsAgreeWithFreshOnes) {
  ModelContents c = RandomContents({"the", "ab"}, 4);
  SubwordVocab& v = c.tokenizer.subword;
  v.kind = SubwordKind::kUnigram;
  v.pieces = {"\xE2\x96\x81", "\xE2\x96\x81" "ab", "ab", "c", "q"};
  v.scores = {-1, -2, -2, -3, -3};
  auto m = BuildModel(c);
  ASSERT_TRUE(m);
  std::vector<std::string> words;
  for (size_t len = 3; len <= 70; ++len) {
    for (const char* stem : {"ab", "qc"}) words.push_back(std::string(stem) + std::string(len - 2, 'c'));
  }
  for (int i = 0; i < 2000; ++i) {
    std::string w = i % 2 ? "ab" : "qc";  // "ab..." resolves to the prefix "ab", "qc..." to nothing
    for (int bit = 10; bit >= 0; --bit) w += (i >> bit) & 1 ? 'q' : 'c';
    words.push_back(w);
  }
  Tokenizer cached(*m);
  for (int pass = 0; pass < 2; ++pass) {
    for (const std::string& word : words) {
      std::vector<Token> fresh, got;
      Tokenizer(*m).Analyze(word, &fresh);
      cached.Analyze(word, &got);
      ASSERT_EQ(fresh.size(), 1u) << word;
      ASSERT_EQ(got.size(), 1u) << word;
      EXPECT_EQ(got[0].id, fresh[0].id) << word << " pass " << pass;
      EXPECT_EQ(got[0].match, fresh[0].match) << word << " pass " << pass;
    }
  }
  std::vector<Token> ab, qc;
  Tokenizer(*m).Analyze(words.back(), &ab);
  Tokenizer(*m).Analyze(words[words.size() - 2], &qc);
  EXPECT_EQ(ab[0].match, Match::kPrefix);  // both outcomes occur
  EXPECT_LT(qc[0].id, 0);
}

}  // namespace
}  // namespace swe

// The vocabulary's perfect-hash word index (core/src/word_index.h): every word found at its row,
// near misses rejected, duplicates refused, colliding hashes survived, and the memory it promises.
#include "word_index.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace swe {
namespace {

// Words laid out as a model stores them: one blob and rows + 1 offsets.
struct Vocabulary {
  std::string bytes;
  std::vector<uint32_t> offsets{0};
  explicit Vocabulary(const std::vector<std::string>& words) {
    for (const std::string& w : words) {
      bytes += w;
      offsets.push_back(static_cast<uint32_t>(bytes.size()));
    }
  }
  Status Build(WordIndex* index) const {
    return index->Build(StringsView{reinterpret_cast<const uint8_t*>(bytes.data()), offsets.data(),
                                    static_cast<uint32_t>(offsets.size() - 1)});
  }
};

TEST(WordIndex, FindsEveryWordOfALargeVocabularyInLittleMemory) {
  std::vector<std::string> words = {"a", "ab", "abcdefgh", "abcdefghi", std::string(300, 'x'), "caf\xC3\xA9"};
  for (int i = 0; i < 60000; ++i) words.push_back((i % 2 ? "w" : "longer-word-") + std::to_string(i * 7919));
  const Vocabulary v(words);
  WordIndex index;
  ASSERT_TRUE(v.Build(&index).ok());
  for (uint32_t i = 0; i < words.size(); ++i) ASSERT_EQ(index.Find(words[i]), i) << words[i];
  for (const std::string& miss : {std::string("abc"), std::string("abcdefgi"), std::string("abcdefghj"),
                                  std::string("a") + '\0', std::string(301, 'x'), std::string(""),
                                  std::string("w1"), std::string("longer-word-1")}) {
    EXPECT_EQ(index.Find(miss), -1) << miss;
  }
  // 16-byte slots for 7/6 of the words and a 2-byte pilot for every 2: 19.7 bytes a word.
  EXPECT_LT(index.bytes(), 20 * words.size());
  EXPECT_GT(index.bytes(), 16 * words.size());
}

// The tokenizer's short cuts give exactly what the plain calls give: HashShort (a word of 1-8 bytes
// from its head) = Hash, LoadHead (one masked load) = LoadPartial.
TEST(WordIndex, ShortWordHashAndHeadAgreeWithThePlainOnes) {
  const std::string bytes = std::string("ab\0\xFF\x80zq7") + "mnopqrstuvwxyz";
  WordIndex index;
  ASSERT_TRUE(Vocabulary({"x"}).Build(&index).ok());
  for (size_t at = 0; at + 8 <= bytes.size(); ++at) {
    for (size_t n = 1; n <= 8; ++n) {
      const std::string_view w(bytes.data() + at, n);
      EXPECT_EQ(index.HashShort(n, LoadPartial(w.data(), n)), index.Hash(w)) << at << " " << n;
    }
  }
  for (size_t n = 0; n <= 12; ++n) {
    for (size_t readable = n; readable <= n + 9; ++readable) {
      EXPECT_EQ(LoadHead(bytes.data(), n, readable), LoadPartial(bytes.data(), n)) << n << " " << readable;
    }
  }
}

TEST(WordIndex, RefusesADuplicateWord) {
  const Vocabulary v({"one", "two", "three", "two"});
  WordIndex index;
  const Status s = v.Build(&index);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("duplicate vocabulary word 'two'"), std::string::npos) << s.message();
}

TEST(WordIndex, EmptyVocabularyFindsNothing) {
  const Vocabulary v({});
  WordIndex index;
  ASSERT_TRUE(v.Build(&index).ok());
  EXPECT_EQ(index.Find("a"), -1);
  EXPECT_EQ(index.Find(""), -1);
}

// Two 16-byte words with one 64-bit hash under seed 0 (the second half of one cancels the first
// half's difference: this repeats HashWord64's first step) make the build retry with seed 1.
TEST(WordIndex, SurvivesTwoWordsWithOneHash) {
  const auto first_step = [](uint64_t head) {
    uint64_t h = (0x9E3779B97F4A7C15ull ^ (16 * 0xFF51AFD7ED558CCDull) ^ head) * 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 31);
  };
  const auto word = [](uint64_t head, uint64_t tail) {
    std::string w(16, '\0');
    std::memcpy(&w[0], &head, 8);
    std::memcpy(&w[8], &tail, 8);
    return w;
  };
  const uint64_t a = 0x4141414141414141ull, b = 0x4242424242424242ull, tail = 0x4343434343434343ull;
  const std::string one = word(a, tail), two = word(b, tail ^ first_step(a) ^ first_step(b));
  ASSERT_NE(one, two);
  ASSERT_EQ(HashWord64(one, 0), HashWord64(two, 0));  // if the hash changes, redo the arithmetic above
  ASSERT_NE(HashWord64(one, 1), HashWord64(two, 1));
  const Vocabulary v({"x", one, "y", two, "z"});
  WordIndex index;
  ASSERT_TRUE(v.Build(&index).ok());
  EXPECT_EQ(index.Find(one), 1);
  EXPECT_EQ(index.Find(two), 3);
  EXPECT_EQ(index.Find("y"), 2);
  for (const std::string_view w : {"y", "yz", "abcdefg", "abcdefgh"}) {  // seed 1's short-word hash
    EXPECT_EQ(index.HashShort(w.size(), LoadPartial(w.data(), w.size())), index.Hash(w)) << w;
  }
  EXPECT_NE(index.Hash("y"), HashWord64("y", 0));
}

// 100 words crowded into one bucket under seed 0 (found by trying names: a hostile file could do
// the same): that seed gives up and the next indexes them.
TEST(WordIndex, IndexesWordsCrowdedIntoOneBucket) {
  const uint32_t buckets = 100 / 2 + 1;  // WordIndex's count for 100 words
  std::vector<std::string> words;
  for (int i = 0; words.size() < 100; ++i) {
    const std::string w = "crowd" + std::to_string(i);
    if (((HashWord64(w, 0) >> 32) * buckets) >> 32 == 0) words.push_back(w);
  }
  const Vocabulary v(words);
  WordIndex index;
  ASSERT_TRUE(v.Build(&index).ok());
  for (uint32_t i = 0; i < words.size(); ++i) EXPECT_EQ(index.Find(words[i]), i) << words[i];
  EXPECT_EQ(index.Find("crowd"), -1);
}

}  // namespace
}  // namespace swe

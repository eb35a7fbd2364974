#include "data/sampler.h"

#include <gtest/gtest.h>

#include <map>

#include "test_util.h"

namespace swe::trainer {
namespace {

std::vector<WordCount> Vocab(std::initializer_list<const char*> words) {
  std::vector<WordCount> v;
  for (const char* w : words) v.push_back({w, 1});
  return v;
}

TEST(TrainerSampler, SharesSentencesAcrossWords) {
  VocabOptions vo;
  SampleOptions so;
  so.per_word = 2;
  so.generic = 0;
  CoverageSampler s(Vocab({"a", "b", "c"}), vo, so);
  s.Offer("a b c");        // serves a, b, c
  s.Offer("A b");          // folded: serves a, b (now both done)
  s.Offer("a b");          // nothing left to serve: not kept
  EXPECT_FALSE(s.complete());
  s.Offer("x y z");        // no vocabulary word
  s.Offer("c c c");        // serves c once
  EXPECT_TRUE(s.complete());
  ASSERT_EQ(s.samples().size(), 3u);
  EXPECT_EQ(s.samples()[0].words, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(s.samples()[1].words, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(s.samples()[2].words, (std::vector<uint32_t>{2}));
  SampleStats st = s.stats();
  EXPECT_EQ(st.sentences_kept, 3u);
  EXPECT_EQ(st.naive_passes, 6u);
  EXPECT_EQ(st.pairs, 6u);
  EXPECT_EQ(st.words_short, 0u);
}

TEST(TrainerSampler, EveryWordGetsMinOfNAndItsCount) {
  VocabOptions vo;
  vo.fold_case = false;
  SampleOptions so;
  so.per_word = 3;
  so.generic = 5;
  auto vocab = Vocab({"w0", "w1", "w2", "w3", "w4", "rare"});
  CoverageSampler s(vocab, vo, so);
  for (int i = 0; i < 40; ++i) s.Offer("w" + std::to_string(i % 5) + " w" + std::to_string((i * 3) % 5) + " filler");
  s.Offer("rare");
  std::map<uint32_t, int> per;
  for (const auto& x : s.samples()) for (uint32_t r : x.words) ++per[r];
  for (uint32_t r = 0; r < 5; ++r) EXPECT_EQ(per[r], 3) << r;
  EXPECT_EQ(per[5], 1);
  EXPECT_EQ(s.stats().words_short, 1u);
  EXPECT_LT(s.stats().sentences_kept, s.stats().naive_passes);
  EXPECT_EQ(s.generic().size(), 5u);
  // The reservoir is deterministic for a seed.
  CoverageSampler s2(vocab, vo, so);
  for (int i = 0; i < 40; ++i) s2.Offer("w" + std::to_string(i % 5) + " w" + std::to_string((i * 3) % 5) + " filler");
  s2.Offer("rare");
  EXPECT_EQ(s.generic(), s2.generic());
}

TEST(TrainerSampler, SkipsOverlongSentencesAndRoundTrips) {
  VocabOptions vo;
  SampleOptions so;
  so.per_word = 5;
  so.max_words = 3;
  so.generic = 0;
  CoverageSampler s(Vocab({"a"}), vo, so);
  s.Offer("a b c d");
  s.Offer("a\tb");
  ASSERT_EQ(s.samples().size(), 1u);
  EXPECT_EQ(s.samples()[0].text, "a b");
  testing::TempDir dir;
  ASSERT_TRUE(WriteSamples(dir.file("s.tsv"), s.samples()).ok());
  std::vector<SampledSentence> back;
  ASSERT_TRUE(ReadSamples(dir.file("s.tsv"), 1, &back).ok());
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].text, "a b");
  EXPECT_EQ(back[0].words, std::vector<uint32_t>{0});
  EXPECT_EQ(ReadSamples(dir.file("s.tsv"), 0, &back).code(), StatusCode::kCorrupt);  // row out of range
}

}  // namespace
}  // namespace swe::trainer

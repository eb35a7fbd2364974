#include "data/vocab.h"

#include <gtest/gtest.h>

#include "data/sampler.h"
#include "test_util.h"

namespace swe::trainer {
namespace {
using testing::TempDir;

TEST(TrainerVocab, CountsWithCoreSplitterAndFolds) {
  VocabOptions o;
  o.size = 3;
  o.min_count = 2;
  o.fold_case = true;
  WordCounter c(o);
  c.AddSentence("The cat, the DOG; the Cat!");
  c.AddSentence("Straße dog");
  c.AddSentence("STRASSE");
  EXPECT_EQ(c.sentences(), 3u);
  EXPECT_EQ(c.tokens(), 9u);
  auto top = c.Top();
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].word, "the");
  EXPECT_EQ(top[0].count, 3u);
  // cat 2, dog 2, strasse 2 (ß folds to ss): ties by bytes, and size 3 keeps "cat" and "dog".
  EXPECT_EQ(top[1].word, "cat");
  EXPECT_EQ(top[2].word, "dog");
}

TEST(TrainerVocab, CaseSensitiveAndMinCount) {
  VocabOptions o;
  o.fold_case = false;
  o.min_count = 1;
  WordCounter c(o);
  c.AddSentence("Apple apple APPLE apple");
  auto top = c.Top();
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].word, "apple");
  EXPECT_EQ(top[0].count, 2u);
  o.min_count = 3;
  WordCounter c2(o);
  c2.AddSentence("x y");
  EXPECT_TRUE(c2.Top().empty());
}

TEST(TrainerVocab, WriteReadRoundTripAndRejections) {
  TempDir dir;
  std::vector<WordCount> v = {{"the", 10}, {"über", 3}};
  ASSERT_TRUE(WriteVocab(dir.file("v.tsv"), v).ok());
  std::vector<WordCount> back;
  ASSERT_TRUE(ReadVocab(dir.file("v.tsv"), &back).ok());
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].word, "über");
  EXPECT_EQ(back[1].count, 3u);
  testing::WriteFile(dir.file("dup.tsv"), "a\t1\na\t2\n");
  EXPECT_EQ(ReadVocab(dir.file("dup.tsv"), &back).code(), StatusCode::kCorrupt);
  testing::WriteFile(dir.file("bad.tsv"), "a 1\n");
  EXPECT_EQ(ReadVocab(dir.file("bad.tsv"), &back).code(), StatusCode::kCorrupt);
  EXPECT_EQ(ReadVocab(dir.file("missing.tsv"), &back).code(), StatusCode::kIo);
}

}  // namespace
}  // namespace swe::trainer

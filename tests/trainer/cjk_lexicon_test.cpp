// init.cjk "longest": the learned CJK lexicon (cjk_lexicon.h), checked by hand on a tiny corpus, and
// the extended model's tokenizer segmenting as the learner did (training rows = inference rows).
#include <gtest/gtest.h>

#include "refine/cjk_lexicon.h"
#include "refine/refine_data.h"
#include "swe/model_file.h"
#include "test_util.h"
#include "refine/vocab_extend.h"

namespace swe::trainer {
namespace {
using testing::TempDir;

const std::vector<std::string> kCorpus = {"東京に行く Tokyo", "東京は大きい", "東京に住む tokyo", "大阪に行く"};

VocabOptions LongestOptions() {
  VocabOptions vo;
  vo.tokenizer.cjk = CjkMode::kLongest;
  vo.fold_case = true;
  vo.min_count = 2;
  return vo;
}

std::vector<std::string> Words(const std::vector<WordCount>& v) {
  std::vector<std::string> out;
  for (const auto& w : v) out.push_back(w.word);
  return out;
}

TEST(TrainerCjkLexicon, LearnsByHand) {
  // Candidates >= 2: 東京 3, 東京に 2, 京に 2, に行 2, に行く 2, 行く 2.
  // Round 1 (longest first): 東京に|行く, 東京|は|大|き|い, 東京に|住|む, 大|阪|に行く: only 東京に
  // is used twice. Round 2 with {東京に}: 東京に|行|く, 東|京|は|大|き|い, 東京に|住|む, 大|阪|に|行|く.
  // Count >= 2: tokyo (folded), 東京に, 行, く, 大; ties by bytes.
  const std::vector<WordCount> top = LearnCjkLexicon(kCorpus, LongestOptions(), 4);
  EXPECT_EQ(Words(top), (std::vector<std::string>{"tokyo", "く", "大", "東京に", "行"}));
  for (const auto& w : top) EXPECT_EQ(w.count, 2u) << w.word;
  // Two characters at most: candidates 東京 3, 京に, に行, 行く 2; both rounds segment 東京|に行|く,
  // 東京|は|大|き|い, 東京|に|住|む, 大|阪|に行|く.
  const std::vector<WordCount> pairs = LearnCjkLexicon(kCorpus, LongestOptions(), 2);
  EXPECT_EQ(Words(pairs), (std::vector<std::string>{"東京", "tokyo", "く", "に行", "大"}));
  EXPECT_EQ(pairs[0].count, 3u);
  // A word inference knows anyway (the base model's) takes part in the matching: the last sentence
  // becomes 大阪|に|行|く in round 2, so 大 is used once only and drops out (大阪 once: not counted).
  const std::vector<WordCount> with_base =
      LearnCjkLexicon(kCorpus, LongestOptions(), 4, [](std::string_view w) { return w == "大阪"; });
  EXPECT_EQ(Words(with_base), (std::vector<std::string>{"tokyo", "く", "東京に", "行"}));
}

TEST(TrainerCjkLexicon, ExtendedModelSegmentsAsLearned) {
  TempDir dir;
  std::string tsv;
  for (const std::string& s : kCorpus) tsv += "x\t" + s + "\n";
  testing::WriteFile(dir.file("ja.tsv"), tsv);
  ModelContents b;
  b.words = {"x", "tokyo"};
  b.dims = 2;
  b.vectors = {1, 0, 0, 1};
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(WriteModel(b, WriteOptions(), &bytes).ok());
  testing::WriteFile(dir.file("base.swe"), std::string(bytes.begin(), bytes.end()));
  std::unique_ptr<Model> base;
  ASSERT_TRUE(ReadModel(bytes.data(), bytes.size(), &base).ok());
  VocabExtension ext;
  ext.set_cjk = true;
  ext.cjk = CjkMode::kLongest;
  AddVocabSource src;
  src.files = {{dir.file("ja.tsv"), 0, false}};
  src.size = 3;
  src.min_count = 2;
  ext.sources = {src};
  std::vector<WordCount> added;
  ASSERT_TRUE(CountNewWords(*base, ext, &added).ok());
  EXPECT_EQ(Words(added), (std::vector<std::string>{"く", "大", "東京に"}));  // tokyo: the model's; size 3
  InitModel init;
  ASSERT_TRUE(LoadInitModel(dir.file("base.swe"), ext, added, &init).ok());
  EXPECT_EQ(init.model->tokenizer_config().cjk, CjkMode::kLongest);
  std::vector<uint32_t> rows;
  ASSERT_TRUE(init.rows("東京に行く", &rows));
  EXPECT_EQ(rows, (std::vector<uint32_t>{4, 2}));  // 東京に, (行: not added), く
}

}  // namespace
}  // namespace swe::trainer

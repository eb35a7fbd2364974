// Extraction's checkpoint: a run stopped after some batches and resumed from its checkpoint ends with
// the same vectors, bit for bit, as one that ran through; a checkpoint made for other inputs or a
// damaged one is ignored; the periodic checkpoint is written every N batches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "teachers/extract.h"
#include "swe/util/progress.h"
#include "test_util.h"

namespace swe::trainer {
namespace {
using testing::TempDir;

struct Problem {
  TempDir dir;
  std::unique_ptr<Teacher> teacher;
  std::vector<WordCount> vocab;
  std::vector<SampledSentence> samples;
  VocabOptions vocab_options;
};

// The tiny random BERT teacher, 40 of its words as the vocabulary, 100 generated sentences.
void MakeProblem(Problem* p) {
  util::Progress::SetEnabled(false);
  testing::WriteTinyBert(p->dir.file("teacher"), testing::TinyBertOptions());
  TeacherOptions t;
  t.path = p->dir.file("teacher");
  t.device = "cpu";
  ASSERT_TRUE(LoadTeacher(t, &p->teacher).ok());
  for (size_t i = 0; i < 40 && i < testing::TinyWords().size(); ++i) p->vocab.push_back({testing::TinyWords()[i], 1});
  const VocabLookup index = VocabIndex(p->vocab);
  std::istringstream lines(testing::TinyCorpus(100, 3));
  std::string line;
  while (std::getline(lines, line)) {
    SampledSentence s{line, {}};
    SentenceRows(line, p->vocab_options, index, &s.words);
    std::sort(s.words.begin(), s.words.end());
    s.words.erase(std::unique(s.words.begin(), s.words.end()), s.words.end());
    p->samples.push_back(std::move(s));
  }
}

Status Extract(Problem& p, const ExtractOptions& o, ExtractResult* out) {
  return ExtractWordVectors(*p.teacher, p.samples, p.vocab, p.vocab_options, o, out);
}

void ExpectSameResult(const ExtractResult& a, const ExtractResult& b) {
  ASSERT_EQ(a.vectors.data.size(), b.vectors.data.size());
  EXPECT_EQ(0, std::memcmp(a.vectors.data.data(), b.vectors.data.data(), a.vectors.data.size() * sizeof(float)));
  EXPECT_EQ(a.counts, b.counts);
  EXPECT_EQ(a.forward_passes, b.forward_passes);
}

TEST(TrainerExtractCheckpoint, AStoppedRunResumesToTheSameVectorsBitForBit) {
  Problem p;
  MakeProblem(&p);
  ExtractOptions o;
  o.batch_size = 8;  // 13 batches
  ExtractResult through;
  ASSERT_TRUE(Extract(p, o, &through).ok());
  EXPECT_EQ(through.done, p.samples.size());
  EXPECT_GT(std::count_if(through.counts.begin(), through.counts.end(), [](uint32_t c) { return c > 0; }), 20);

  o.checkpoint = p.dir.file("extract.checkpoint");
  o.checkpoint_key = "key";
  int batches = 0;
  o.stop = [&] { return ++batches == 3; };
  ExtractResult stopped;
  ASSERT_TRUE(Extract(p, o, &stopped).ok());
  EXPECT_TRUE(stopped.interrupted);
  EXPECT_EQ(stopped.done, 24u);
  EXPECT_TRUE(std::filesystem::exists(o.checkpoint));

  o.stop = nullptr;
  ExtractResult resumed;
  ASSERT_TRUE(Extract(p, o, &resumed).ok());
  EXPECT_EQ(resumed.resumed_at, 24u);
  EXPECT_FALSE(resumed.interrupted);
  ExpectSameResult(through, resumed);

  // Stopped twice (the second time from a resumed run), then finished.
  batches = 0;
  o.stop = [&] { return ++batches == 2 || batches == 6; };
  std::filesystem::remove(o.checkpoint);
  ASSERT_TRUE(Extract(p, o, &stopped).ok());
  ASSERT_TRUE(Extract(p, o, &stopped).ok());
  EXPECT_EQ(stopped.resumed_at, 16u);
  EXPECT_EQ(stopped.done, 48u);
  o.stop = nullptr;
  ASSERT_TRUE(Extract(p, o, &resumed).ok());
  EXPECT_EQ(resumed.resumed_at, 48u);
  ExpectSameResult(through, resumed);
}

TEST(TrainerExtractCheckpoint, ACheckpointForOtherInputsOrDamagedIsIgnored) {
  Problem p;
  MakeProblem(&p);
  ExtractOptions o;
  o.batch_size = 8;
  ExtractResult through;
  ASSERT_TRUE(Extract(p, o, &through).ok());
  o.checkpoint = p.dir.file("extract.checkpoint");
  o.checkpoint_key = "key";
  int batches = 0;
  o.stop = [&] { return ++batches == 3; };
  ExtractResult r;
  ASSERT_TRUE(Extract(p, o, &r).ok());
  const std::string saved = testing::ReadFile(o.checkpoint);
  o.stop = nullptr;

  o.checkpoint_key = "another recipe";  // the stage's recipe sections changed
  ASSERT_TRUE(Extract(p, o, &r).ok());
  EXPECT_EQ(r.resumed_at, 0u);
  ExpectSameResult(through, r);

  o.checkpoint_key = "key";
  o.batch_size = 4;  // another batch size
  testing::WriteFile(o.checkpoint, saved);
  ASSERT_TRUE(Extract(p, o, &r).ok());
  EXPECT_EQ(r.resumed_at, 0u);
  o.batch_size = 8;

  Problem other;  // other samples: one sentence edited
  MakeProblem(&other);
  other.samples[5].text += " again";
  testing::WriteFile(o.checkpoint, saved);
  ASSERT_TRUE(ExtractWordVectors(*other.teacher, other.samples, other.vocab, other.vocab_options, o, &r).ok());
  EXPECT_EQ(r.resumed_at, 0u);

  for (size_t keep : {size_t{0}, size_t{10}, saved.size() - 1}) {  // truncated
    testing::WriteFile(o.checkpoint, saved.substr(0, keep));
    ASSERT_TRUE(Extract(p, o, &r).ok());
    EXPECT_EQ(r.resumed_at, 0u) << keep;
    ExpectSameResult(through, r);
  }
  testing::WriteFile(o.checkpoint, saved + "x");  // trailing bytes
  ASSERT_TRUE(Extract(p, o, &r).ok());
  EXPECT_EQ(r.resumed_at, 0u);

  testing::WriteFile(o.checkpoint, saved);  // the right one is used
  ASSERT_TRUE(Extract(p, o, &r).ok());
  EXPECT_EQ(r.resumed_at, 24u);
  ExpectSameResult(through, r);
}

TEST(TrainerExtractCheckpoint, WrittenEveryNBatches) {
  Problem p;
  MakeProblem(&p);
  ExtractOptions o;
  o.batch_size = 8;
  o.checkpoint = p.dir.file("extract.checkpoint");
  o.checkpoint_every = 2;
  std::vector<bool> exists;  // before each batch's checkpoint
  o.stop = [&] {
    exists.push_back(std::filesystem::exists(o.checkpoint));
    return false;
  };
  ExtractResult r;
  ASSERT_TRUE(Extract(p, o, &r).ok());
  ASSERT_GE(exists.size(), 3u);
  EXPECT_FALSE(exists[0]);
  EXPECT_FALSE(exists[1]);
  EXPECT_TRUE(exists[2]);  // written after the second batch
  // A run that died after the last periodic checkpoint (12 batches: 96 sentences) resumes from it.
  o.stop = nullptr;
  ExtractResult resumed;
  ASSERT_TRUE(Extract(p, o, &resumed).ok());
  EXPECT_EQ(resumed.resumed_at, 96u);
  ExpectSameResult(r, resumed);
}

}  // namespace
}  // namespace swe::trainer

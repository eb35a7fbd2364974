#include "data/corpus.h"

#include <gtest/gtest.h>

#include "swe/util/progress.h"
#include "test_util.h"

namespace swe::trainer {
namespace {
using testing::TempDir;
using testing::WriteFile;

std::vector<std::string> ReadAll(const std::string& path, Status* status) {
  std::unique_ptr<LineReader> r;
  std::vector<std::string> lines;
  *status = LineReader::Open(path, &r);
  if (!status->ok()) return lines;
  std::string line;
  while (r->Next(&line)) lines.push_back(line);
  *status = r->status();
  return lines;
}

TEST(TrainerCorpus, ReadsPlainTextWithCrLfAndNoFinalNewline) {
  TempDir dir;
  WriteFile(dir.file("a.txt"), "one\r\ntwo\n\nthree");
  Status s;
  auto lines = ReadAll(dir.file("a.txt"), &s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "", "three"}));
}

TEST(TrainerCorpus, ReadsMultiFrameZstd) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "sentence number " + std::to_string(i) + "\n";
  WriteFile(dir.file("a.txt.zst"), testing::Zstd(text, 2));
  Status s;
  auto lines = ReadAll(dir.file("a.txt.zst"), &s);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(lines.size(), 5000u);
  EXPECT_EQ(lines[4321], "sentence number 4321");
}

TEST(TrainerCorpus, RejectsTruncatedAndCorruptZstd) {
  TempDir dir;
  std::string z = testing::Zstd(std::string(100000, 'x') + "\n");
  WriteFile(dir.file("t.zst"), z.substr(0, z.size() / 2));
  Status s;
  ReadAll(dir.file("t.zst"), &s);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
  WriteFile(dir.file("c.zst"), "this is not zstd at all\n");
  ReadAll(dir.file("c.zst"), &s);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
}

TEST(TrainerCorpus, SplitTabsMakesEachColumnASentence) {
  util::Progress::SetEnabled(false);
  TempDir dir;
  WriteFile(dir.file("p.tsv.zst"), testing::Zstd("A cat.\tEine Katze. Sie schläft.\n\t \nHi.\n"));
  CorpusOptions o;
  o.paths = {dir.file("p.tsv.zst")};
  std::vector<std::string> got;
  auto collect = [&](std::string_view s) {
    got.emplace_back(s);
    return true;
  };
  o.split_tabs = true;
  ASSERT_TRUE(ForEachSentence(o, "test", collect).ok());
  EXPECT_EQ(got, (std::vector<std::string>{"A cat.", "Eine Katze. Sie schläft.", "Hi."}));
  got.clear();
  o.split_sentences = true;
  ASSERT_TRUE(ForEachSentence(o, "test", collect).ok());
  EXPECT_EQ(got, (std::vector<std::string>{"A cat.", "Eine Katze.", "Sie schläft.", "Hi."}));
}

TEST(TrainerCorpus, ReadsTranslationPairs) {
  TempDir dir;
  WriteFile(dir.file("p.tsv.zst"), testing::Zstd("A cat. \t Eine Katze.\r\n\nHi.\tHallo!\n", 2));
  std::vector<SentencePair> pairs = {{"x", "y"}};
  ASSERT_TRUE(ReadPairs(dir.file("p.tsv.zst"), &pairs).ok());
  ASSERT_EQ(pairs.size(), 3u);  // appended
  EXPECT_EQ(pairs[1].source, "A cat.");
  EXPECT_EQ(pairs[1].target, "Eine Katze.");
  EXPECT_EQ(pairs[2].target, "Hallo!");
  // Errors name the file and line (more in e2e_test's ContrastiveRecipeErrors).
  WriteFile(dir.file("bad.tsv"), "Hi.\tHallo!\nA\tB\tC\n");
  Status s = ReadPairs(dir.file("bad.tsv"), &pairs);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("bad.tsv:2: expected 2 tab-separated sentences, found 2 tabs"), std::string::npos)
      << s.message();
  EXPECT_EQ(ReadPairs(dir.file("none.tsv"), &pairs).code(), StatusCode::kIo);
  // Triples (NLI: premise, entailment, contradiction), sides trimmed; a pair line is an error there.
  std::vector<std::vector<std::string>> triples;
  EXPECT_FALSE(ReadTuples(dir.file("bad.tsv"), 3, &triples).ok());
  WriteFile(dir.file("t.tsv"), "A man sleeps. \tA person rests.\t A man runs.\n");
  ASSERT_TRUE(ReadTuples(dir.file("t.tsv"), 3, &triples).ok());
  EXPECT_EQ(triples, (std::vector<std::vector<std::string>>{{"A man sleeps.", "A person rests.", "A man runs."}}));
  WriteFile(dir.file("t.tsv"), "a\tb\t \n");
  s = ReadTuples(dir.file("t.tsv"), 3, &triples);
  EXPECT_NE(s.message().find("t.tsv:1: empty sentence"), std::string::npos) << s.message();
  // skip_malformed: a wrong number of tabs or an empty side is skipped and counted instead.
  WriteFile(dir.file("m.tsv"), "Hi.\tHallo!\nA\tB\tC\n \tleer\nYes.\tJa.\n");
  pairs.clear();
  std::vector<std::vector<std::string>> tuples;
  uint64_t skipped = 0;
  ASSERT_TRUE(ReadTuples(dir.file("m.tsv"), 2, &tuples, &skipped).ok());
  EXPECT_EQ(tuples, (std::vector<std::vector<std::string>>{{"Hi.", "Hallo!"}, {"Yes.", "Ja."}}));
  EXPECT_EQ(skipped, 2u);
  WriteFile(dir.file("m.tsv"), "A\tB\tC\n");
  EXPECT_FALSE(ReadTuples(dir.file("m.tsv"), 2, &tuples, &skipped).ok());  // nothing left: still an error
}

TEST(TrainerCorpus, MissingFileIsAnIoError) {
  Status s;
  ReadAll("/nonexistent/corpus.txt", &s);
  EXPECT_EQ(s.code(), StatusCode::kIo);
  EXPECT_NE(s.message().find("not found"), std::string::npos);
}

TEST(TrainerCorpus, SplitsParagraphsIntoSentences) {
  std::vector<std::string_view> out;
  SplitSentences("Mr. Smith went to Washington. He said \"Hi!\" Then J. Doe left?  Yes...   ok", &out);
  std::vector<std::string> got(out.begin(), out.end());
  EXPECT_EQ(got, (std::vector<std::string>{"Mr. Smith went to Washington.", "He said \"Hi!\"",
                                            "Then J. Doe left?", "Yes...", "ok"}));
  out.clear();
  SplitSentences("我爱你。你好！", &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], "我爱你。");
  out.clear();
  SplitSentences("   ", &out);
  EXPECT_TRUE(out.empty());
}

TEST(TrainerCorpus, ForEachSentenceSplitsAndStops) {
  util::Progress::SetEnabled(false);
  TempDir dir;
  WriteFile(dir.file("a.txt"), "A b. C d.\n\n  E f  \n");
  WriteFile(dir.file("b.txt.zst"), testing::Zstd("G h.\n"));
  CorpusOptions o;
  o.paths = {dir.file("a.txt"), dir.file("b.txt.zst")};
  o.split_sentences = true;
  auto read = [&o]() {  // every sentence ForEachSentence gives under the options of the moment
    std::vector<std::string> got;
    EXPECT_TRUE(ForEachSentence(o, "test", [&](std::string_view s) {
                  got.emplace_back(s);
                  return true;
                }).ok());
    return got;
  };
  EXPECT_EQ(read(), (std::vector<std::string>{"A b.", "C d.", "E f", "G h."}));
  o.max_sentences = 2;
  EXPECT_EQ(read().size(), 2u);
  o.skip_sentences = 1;  // the slice after the first sentence, across files too
  EXPECT_EQ(read(), (std::vector<std::string>{"C d.", "E f"}));
  o.skip_sentences = 3;
  o.max_sentences = 0;
  EXPECT_EQ(read(), (std::vector<std::string>{"G h."}));
  o.paths.push_back(dir.file("missing.txt"));
  EXPECT_EQ(ForEachSentence(o, "test", [](std::string_view) { return true; }).code(), StatusCode::kIo);
}

TEST(TrainerCorpus, FingerprintsAreStable) {
  EXPECT_EQ(HexU64(Fnv1a64("")), "cbf29ce484222325");
  EXPECT_EQ(HexU64(Fnv1a64("a")), "af63dc4c8601ec8c");
  EXPECT_EQ(util::FormatDuration(3725), "1h02m");
  EXPECT_EQ(util::FormatDuration(65), "1m05s");
}

}  // namespace
}  // namespace swe::trainer

#include "teachers/use_lite_teacher.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "teachers/extract.h"
#include "swe/model_file.h"
#include "test_util.h"
#include "use_lite_test_util.h"
#include "test_paths.h"

namespace swe::trainer {
namespace {
using nlohmann::json;

using testing::Cosine;

double MaxAbsDiff(const float* a, const float* b, size_t n) {
  double d = 0;
  for (size_t i = 0; i < n; ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  return d;
}

class TrainerUseLiteTeacher : public ::testing::Test {
 protected:
  void SetUp() override {
    SWE_TEST_REQUIRE_USE_LITE(&dir_);
    ConfigureTorch(2, 1);
    Status s = UseLiteModel::Load(dir_, "cpu", &model_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    golden_ = json::parse(testing::ReadFile(testing::UseLiteFixture("golden.json")));
    floats_ = testing::GoldenFloats(testing::UseLiteFixture("golden.f32")).all();
    sentences_ = golden_["sentences"].get<std::vector<std::string>>();
  }
  std::string dir_;
  std::unique_ptr<UseLiteModel> model_;
  json golden_;
  std::vector<float> floats_;
  std::vector<std::string> sentences_;
};

// Pooled vectors of every golden sentence, batched by 10 as the golden script did; per sentence the
// cosine with the original must be >= 0.9999.
TEST_F(TrainerUseLiteTeacher, PooledVectorsMatchTheOriginal) {
  const size_t D = 512, N = sentences_.size();
  ASSERT_GE(floats_.size(), N * D);
  double min_cos = 1, max_diff = 0;
  for (size_t start = 0; start < N; start += 10) {
    std::vector<std::string> batch(sentences_.begin() + start, sentences_.begin() + std::min(N, start + 10));
    UseLiteBatch out;
    Status s = model_->Run(batch, false, &out);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(out.dims, D);
    for (size_t i = 0; i < batch.size(); ++i) {
      const float* want = floats_.data() + (start + i) * D;
      double c = Cosine(out.pooled.data() + i * D, want, D);
      EXPECT_GE(c, 0.9999) << start + i << ": " << batch[i];
      min_cos = std::min(min_cos, c);
      max_diff = std::max(max_diff, MaxAbsDiff(out.pooled.data() + i * D, want, D));
    }
  }
  std::printf("[ parity  ] pooled: %zu sentences, min cosine 1 - %.3g, max |diff| %.3g\n", N, 1 - min_cos, max_diff);
}

// The last-layer token vectors (the graph's internal node Layer_1/.../FFN/layer_postprocess/add) of the
// selected sentences, run as one batch; per token the cosine must be >= 0.9999.
TEST_F(TrainerUseLiteTeacher, TokenVectorsMatchTheOriginal) {
  const size_t D = 512, N = sentences_.size();
  std::vector<size_t> which = golden_["token_sentences"].get<std::vector<size_t>>();
  std::vector<std::string> batch;
  for (size_t i : which) batch.push_back(sentences_[i]);
  UseLiteBatch out;
  Status s = model_->Run(batch, true, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  size_t want_row = N, got_row = 0, tokens = 0;
  double min_cos = 1, max_diff = 0;
  for (size_t b = 0; b < which.size(); ++b) {
    size_t n = std::min<size_t>(golden_["ids"][which[b]].size(), 128);
    ASSERT_EQ(out.tokens[b].size(), n) << which[b];
    for (size_t j = 0; j < n; ++j, ++want_row, ++got_row, ++tokens) {
      ASSERT_LE((want_row + 1) * D, floats_.size());
      const float* want = floats_.data() + want_row * D;
      const float* got = out.token_vectors.data() + got_row * D;
      double c = Cosine(got, want, D);
      EXPECT_GE(c, 0.9999) << "sentence " << which[b] << " token " << j;
      min_cos = std::min(min_cos, c);
      max_diff = std::max(max_diff, MaxAbsDiff(got, want, D));
    }
  }
  EXPECT_EQ(want_row * D, floats_.size());
  std::printf("[ parity  ] token vectors: %zu tokens of %zu sentences, min cosine 1 - %.3g, max |diff| %.3g\n", tokens,
              which.size(), 1 - min_cos, max_diff);
}

// A sentence's outputs do not depend on what else is in its batch (padding is masked).
TEST_F(TrainerUseLiteTeacher, OutputsDoNotDependOnTheBatch) {
  std::vector<std::string> batch = {"Short.", "A much longer sentence that needs many more pieces than the first.", ""};
  UseLiteBatch together, alone;
  ASSERT_TRUE(model_->Run(batch, true, &together).ok());
  size_t row = 0;
  for (size_t b = 0; b < batch.size(); ++b) {
    ASSERT_TRUE(model_->Run({batch[b]}, true, &alone).ok());
    EXPECT_GT(Cosine(together.pooled.data() + b * 512, alone.pooled.data(), 512), 0.999999) << b;
    for (size_t j = 0; j < alone.tokens[0].size(); ++j, ++row) {
      EXPECT_GT(Cosine(together.token_vectors.data() + row * 512, alone.token_vectors.data() + j * 512, 512), 0.999999);
    }
    for (float v : alone.pooled) ASSERT_TRUE(std::isfinite(v));
  }
}

TEST_F(TrainerUseLiteTeacher, TruncatesToTheGraphLimit) {
  EXPECT_EQ(model_->max_tokens(), 128u);
  std::string text;
  for (int i = 0; i < 200; ++i) text += "word ";
  UseLiteBatch out;
  ASSERT_TRUE(model_->Run({text}, true, &out).ok());
  EXPECT_EQ(out.tokens[0].size(), 128u);
  model_->set_max_tokens(16);
  ASSERT_TRUE(model_->Run({text}, true, &out).ok());
  EXPECT_EQ(out.tokens[0].size(), 16u);
  model_->set_max_tokens(1000);
  EXPECT_EQ(model_->max_tokens(), 128u);
}

// The Teacher interface: a word's vector is the mean of the pieces overlapping its bytes.
TEST_F(TrainerUseLiteTeacher, TeacherAlignsPiecesWithWords) {
  TeacherOptions o;
  o.kind = "use-lite";
  o.path = dir_;
  o.device = "cpu";
  std::unique_ptr<Teacher> teacher;
  Status s = LoadTeacher(o, &teacher);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(teacher->dims(), 512u);
  EXPECT_EQ(teacher->name(), "use-lite:" + dir_);
  EXPECT_EQ(teacher->subword_vocab().pieces.size(), 7992u);  // 8000 - 6 reserved - 2 duplicates
  const std::string text = "I don't like Supercalifragilistic cats.";
  std::vector<std::string> words;
  std::vector<WordSpan> spans;
  TokenizerConfig config;
  SplitWithSpans(text, config, &words, &spans);
  ASSERT_EQ(words, (std::vector<std::string>{"I", "don", "t", "like", "Supercalifragilistic", "cats"}));
  std::vector<std::vector<WordSpan>> all = {spans};
  TeacherOutput out;
  ASSERT_TRUE(teacher->Encode({text}, &all, &out).ok());
  ASSERT_EQ(out.found, std::vector<uint8_t>(words.size(), 1));
  UseLiteBatch batch;
  ASSERT_TRUE(model_->Run({text}, true, &batch).ok());
  for (size_t w = 0; w < spans.size(); ++w) {
    std::vector<float> mean(512, 0.0f);
    int k = 0;
    for (size_t i = 0; i < batch.tokens[0].size(); ++i) {
      const UseLiteToken& t = batch.tokens[0][i];
      if (t.begin < t.end && t.begin < spans[w].end && t.end > spans[w].begin) {
        for (int d = 0; d < 512; ++d) mean[d] += batch.token_vectors[i * 512 + d];
        ++k;
      }
    }
    ASSERT_GT(k, 0) << words[w];
    for (float& v : mean) v /= static_cast<float>(k);
    EXPECT_GT(Cosine(out.word_vectors.data() + w * 512, mean.data(), 512), 0.999999) << words[w];
  }
  ASSERT_EQ(out.sentence_vectors.size(), 512u);
  EXPECT_GT(Cosine(out.sentence_vectors.data(), batch.pooled.data(), 512), 0.999999);
}

TEST(TrainerUseLiteTeacherLoad, RejectsMissingOrForeignModels) {
  std::unique_ptr<UseLiteModel> m;
  EXPECT_EQ(UseLiteModel::Load("/nonexistent", "cpu", &m).code(), StatusCode::kIo);
  std::string dir;
  SWE_TEST_REQUIRE_USE_LITE(&dir);
  testing::TempDir tmp;
  namespace fs = std::filesystem;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename() != "model.json") fs::create_symlink(e.path(), tmp.file(e.path().filename().string()));
  }
  std::string model = testing::ReadFile(dir + "/model.json");
  // Another activation in the FFN: not the graph this port implements.
  std::string relu = "\"op\": \"Relu\"";
  size_t at = model.find(relu);
  ASSERT_NE(at, std::string::npos);
  testing::WriteFile(tmp.file("model.json"), model.substr(0, at) + "\"op\": \"Elu\"" + model.substr(at + relu.size()));
  Status s = UseLiteModel::Load(tmp.path(), "cpu", &m);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported) << s.ToString();
  // A truncated shard.
  testing::WriteFile(tmp.file("model.json"), model);
  fs::remove(tmp.file("group1-shard7of7"));
  testing::WriteFile(tmp.file("group1-shard7of7"), testing::ReadFile(dir + "/group1-shard7of7").substr(0, 1000));
  s = UseLiteModel::Load(tmp.path(), "cpu", &m);
  EXPECT_EQ(s.code(), StatusCode::kCorrupt) << s.ToString();
}

// Every stage through the CLI with `--teacher use-lite DIR` overriding the recipe's (absent) BERT
// teacher; the exported model carries USE-lite's unigram vocabulary for OOV fallback.
TEST(TrainerUseLiteEndToEnd, CliTrainsWithTheUseLiteTeacher) {
  std::string dir;
  SWE_TEST_REQUIRE_USE_LITE(&dir);
  testing::TempDir tmp;
  const char* words[] = {"the", "cat", "dog", "sat", "on", "mat", "a", "red", "big", "small", "ran", "to",
                         "house", "tree", "bird", "sang", "in", "green", "park", "old", "man", "saw", "child"};
  std::string corpus;
  uint32_t x = 12345;
  for (int i = 0; i < 600; ++i) {
    for (int k = 0; k < 6; ++k) {
      x = x * 1103515245u + 12345u;
      corpus += std::string(k ? " " : "") + words[(x >> 16) % (sizeof words / sizeof *words)];
    }
    corpus += ".\n";
  }
  testing::WriteFile(tmp.file("corpus.txt.zst"), testing::Zstd(corpus));
  json recipe = {{"name", "tiny-use-lite"},
                 {"work_dir", tmp.file("work")},
                 {"corpus", {{"paths", {tmp.file("corpus.txt.zst")}}}},
                 {"vocab", {{"size", 20}, {"min_count", 2}}},
                 {"sample", {{"per_word", 8}, {"sentences", 300}}},
                 {"teacher", {{"kind", "bert"}, {"path", tmp.file("no-such-teacher")}, {"batch_size", 32}}},
                 {"pca", {{"dims", 8}, {"remove", 1}}},
                 {"refine", {{"batch_size", 32}, {"max_epochs", 2}, {"heldout", 0.2}}},
                 {"export", {{"path", tmp.file("out.swe")}, {"dtype", "f32"}}},
                 {"device", "cpu"}};
  testing::WriteFile(tmp.file("recipe.json"), recipe.dump());
  std::string cmd = std::string(swe::test::TrainerPath()) + " train --quiet --recipe " + tmp.file("recipe.json") +
                    " --teacher use-lite " + dir + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string log;
  char buf[512];
  while (std::fgets(buf, sizeof buf, f)) log += buf;
  ASSERT_EQ(pclose(f), 0) << log;
  EXPECT_NE(log.find("512 dims"), std::string::npos) << log;
  std::unique_ptr<Model> model;
  ASSERT_TRUE(testing::ReadModelFile(tmp.file("out.swe"), &model).ok());
  EXPECT_EQ(model->dims(), 8u);
  EXPECT_GE(model->find("cat"), 0);
  EXPECT_EQ(model->tokenizer_config().subword.kind, SubwordKind::kUnigram);
  EXPECT_EQ(model->tokenizer_config().subword.pieces.size(), 7992u);
  EXPECT_EQ(model->provenance().teacher, "use-lite:" + dir);
}

// swe-trainer eval scores the teacher with swe eval's code: on the first 100 STS-B dev pairs the
// real teacher correlates strongly with gold (rows out of order would give about 0).
TEST(TrainerUseLiteEndToEnd, CliEvaluatesTheTeacher) {
  std::string dir;
  SWE_TEST_REQUIRE_USE_LITE(&dir);
  testing::TempDir tmp;
  auto run = [](const std::string& args, std::string* log) {
    FILE* f = popen((std::string(swe::test::TrainerPath()) + " " + args + " 2>&1").c_str(), "r");
    if (f == nullptr) return -1;
    char buf[512];
    while (std::fgets(buf, sizeof buf, f)) *log += buf;
    return pclose(f);
  };
  std::string log;
  ASSERT_EQ(run("eval --quiet --teacher use-lite " + dir + " --tasks stsb,sick --limit 100 --data " +
                    std::string(swe::test::SharedData()) + " --json " + tmp.file("teacher.jsonl"),
                &log),
            0)
      << log;
  EXPECT_NE(log.find("| stsb | spearman | 100 |"), std::string::npos) << log;
  std::istringstream lines(testing::ReadFile(tmp.file("teacher.jsonl")));
  std::string line;
  int tasks = 0;
  while (std::getline(lines, line)) {
    nlohmann::json r = nlohmann::json::parse(line);
    EXPECT_EQ(r["model"], "use-lite");
    EXPECT_EQ(r["n"], r["task"] == "sick" ? 200 : 100);  // SICK pools the first 100 of train and of trial
    EXPECT_GT(r["score"].get<double>(), 60.0) << line;
    ++tasks;
  }
  EXPECT_EQ(tasks, 2);

  log.clear();
  EXPECT_NE(run("eval --teacher use-lite " + dir + " --tasks nope", &log), 0);
  EXPECT_NE(log.find("unknown task"), std::string::npos) << log;
  log.clear();
  EXPECT_NE(run("eval --tasks stsb", &log), 0);
  EXPECT_NE(log.find("eval needs --teacher"), std::string::npos) << log;
}

}  // namespace
}  // namespace swe::trainer

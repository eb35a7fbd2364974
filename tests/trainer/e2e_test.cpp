// End to end: a tiny random BERT teacher and a small generated corpus through every stage, resuming,
// re-running one stage, the exported model read back by core, and the CLI's errors.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>

#include "pipeline.h"
#include "progress.h"
#include "recipe.h"
#include "swe/model_file.h"
#include "swe/tokenizer.h"
#include "test_util.h"

namespace swe::trainer {
namespace {
using nlohmann::json;
using testing::TempDir;

std::string Corpus(int sentences, uint32_t seed) {
  const auto& words = testing::TinyWords();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, words.size() - 1), len(4, 10);
  std::string text;
  for (int i = 0; i < sentences; ++i) {
    size_t n = len(rng);
    for (size_t k = 0; k < n; ++k) {
      std::string w = words[pick(rng)];
      if (k == 0) w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
      text += (k ? " " : "") + w;
    }
    text += ".\n";
  }
  return text;
}

json BaseRecipe(const TempDir& dir) {
  return {{"name", "tiny"},
          {"description", "end-to-end test model"},
          {"work_dir", dir.file("work")},
          {"corpus", {{"paths", {dir.file("corpus.txt.zst")}}}},
          {"vocab", {{"size", 60}, {"min_count", 2}, {"fold_case", true}}},
          {"sample", {{"per_word", 10}, {"sentences", 400}}},
          {"teacher", {{"kind", "bert"}, {"path", dir.file("teacher")}, {"batch_size", 32}}},
          {"pca", {{"mode", "sentence"}, {"dims", 8}, {"remove", 1}}},
          {"refine", {{"method", "kd"}, {"batch_size", 32}, {"max_epochs", 3}, {"patience", 2}, {"heldout", 0.2}}},
          {"export", {{"path", dir.file("out/tiny.swe")}, {"dtype", "f16"}}},
          {"device", "cpu"},
          {"threads", 2}};
}

Status RunRecipe(const json& recipe_json, std::vector<std::string>* log, std::vector<Stage> only = {}) {
  Recipe recipe;
  SWE_RETURN_IF_ERROR(ParseRecipe(recipe_json.dump(), &recipe));
  RunOptions o;
  o.only = std::move(only);
  o.log = [log](const std::string& line) { log->push_back(line); };
  return RunPipeline(recipe, o);
}

int Count(const std::vector<std::string>& log, const std::string& needle) {
  int n = 0;
  for (const auto& l : log) n += l.find(needle) != std::string::npos;
  return n;
}

TEST(TrainerEndToEnd, TrainsResumesAndExportsAModelCoreCanRead) {
  Progress::SetEnabled(false);
  auto t0 = std::chrono::steady_clock::now();
  TempDir dir;
  testing::WriteTinyBert(dir.file("teacher"), testing::TinyBertOptions());
  testing::WriteFile(dir.file("corpus.txt.zst"), testing::Zstd(Corpus(1500, 11)));
  json recipe = BaseRecipe(dir);
  std::vector<std::string> log;
  Status s = RunRecipe(recipe, &log);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (const auto& l : log) std::printf("  %s\n", l.c_str());
  EXPECT_EQ(Count(log, "up to date"), 0);
  EXPECT_EQ(Count(log, "teacher forward passes"), 1);

  std::string bytes = testing::ReadFile(dir.file("out/tiny.swe"));
  std::unique_ptr<Model> model;
  ASSERT_TRUE(ReadModel(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &model).ok());
  EXPECT_EQ(model->dims(), 8u);
  EXPECT_EQ(model->dtype(), DType::kF16);
  EXPECT_GE(model->vocab_size(), 30u);
  EXPECT_LE(model->vocab_size(), 60u);
  EXPECT_GE(model->find("cat"), 0);
  EXPECT_EQ(model->tokenizer_config().subword.kind, SubwordKind::kWordPiece);
  EXPECT_TRUE(model->tokenizer_config().subword.lowercase);
  const Provenance& p = model->provenance();
  EXPECT_EQ(p.name, "tiny");
  EXPECT_NE(p.teacher.find("bert:"), std::string::npos);
  EXPECT_EQ(p.corpus_hash.rfind("fnv1a64:", 0), 0u);
  EXPECT_NE(p.recipe.find("\"per_word\""), std::string::npos);
  ASSERT_EQ(p.scores.size(), 2u);
  EXPECT_LE(p.scores[1].value, p.scores[0].value);  // best held-out loss <= initial
  std::vector<uint32_t> ids;
  Tokenizer(*model).Encode("The Cat sat on the mat", &ids);
  EXPECT_EQ(ids.size(), 6u);

  json sample = json::parse(testing::ReadFile(dir.file("work/sample.json")));
  EXPECT_LT(sample["stats"]["forward_passes"].get<uint64_t>(), sample["stats"]["naive_forward_passes"].get<uint64_t>());

  // Resume: every stage is up to date.
  log.clear();
  ASSERT_TRUE(RunRecipe(recipe, &log).ok());
  EXPECT_EQ(Count(log, "up to date"), 6);
  // Re-run one stage alone; the later stages are then out of date and re-run by `train`.
  log.clear();
  ASSERT_TRUE(RunRecipe(recipe, &log, {Stage::kPca}).ok());
  EXPECT_EQ(Count(log, "pca:"), 1);
  log.clear();
  ASSERT_TRUE(RunRecipe(recipe, &log).ok());
  EXPECT_EQ(Count(log, "up to date"), 4);
  EXPECT_EQ(Count(log, "cached teacher vectors"), 1);
  // Changing a refine setting re-runs refine and export only.
  recipe["refine"]["max_epochs"] = 1;
  log.clear();
  ASSERT_TRUE(RunRecipe(recipe, &log).ok());
  EXPECT_EQ(Count(log, "up to date"), 4);
  // A later stage alone needs the earlier ones for this recipe.
  recipe["vocab"]["size"] = 50;
  log.clear();
  s = RunRecipe(recipe, &log, {Stage::kExport});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("has not run or is out of date"), std::string::npos) << s.message();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  end-to-end: %.1f s\n", secs);
  EXPECT_LT(secs, 60.0);
}

TEST(TrainerEndToEnd, ClearErrorsForEmptyCorpusAndMissingTeacher) {
  Progress::SetEnabled(false);
  TempDir dir;
  testing::WriteFile(dir.file("corpus.txt.zst"), testing::Zstd("\n  \n"));
  json recipe = BaseRecipe(dir);
  std::vector<std::string> log;
  Status s = RunRecipe(recipe, &log);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("corpus is empty"), std::string::npos) << s.message();

  testing::WriteFile(dir.file("corpus.txt.zst"), testing::Zstd(Corpus(200, 3)));
  testing::WriteFile(dir.file("recipe.json"), recipe.dump());
  std::string cmd = std::string(SWE_TRAINER_BIN) + " train --quiet --recipe " + dir.file("recipe.json") + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, f)) out += buf;
  int rc = pclose(f);
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("teacher directory not found"), std::string::npos) << out;

  recipe["vocab"]["sise"] = 3;
  EXPECT_NE(RunRecipe(recipe, &log).message().find("unknown key 'vocab.sise'"), std::string::npos);
}

}  // namespace
}  // namespace swe::trainer

